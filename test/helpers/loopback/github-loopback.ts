/**
 * A GitHub stand-in on 127.0.0.1 speaking the part of the REST API (at /api/v3, as GitHub
 * Enterprise Server does) and of the OAuth web flow (at /) that codehost-github uses. App JWTs are
 * verified against the test app's public key, installation tokens are minted and checked, and
 * scenario controls set up installations, repositories (contents over git, fetch and push:
 * github-loopback-git.ts), pull requests and CI (github-loopback-pulls.ts), outages and sign-in codes.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { basicPassword } from './git-http.js'
import { createLoopbackGit, type LoopbackGitControls, type LoopbackRequest } from './github-loopback-git.js'
import { readBody, routeOf, send, verifyAppJwt, type Reply } from './github-loopback-http.js'
import { createLoopbackPulls, type LoopbackPullControls } from './github-loopback-pulls.js'

/** A person who can sign in through the OAuth flow. */
export interface LoopbackUser {
  readonly id: number
  readonly login: string
  readonly name?: string
  /** Public profile email (GET /user). */
  readonly email?: string
  /** GET /user/emails; absent answers 403 as for an app without the email permission. */
  readonly emails?: ReadonlyArray<{ email: string; primary: boolean; verified: boolean }>
}

/**
 * A running loopback GitHub and its scenario controls: serveGit, acceptToken and failGit for
 * repository contents; pulls, comments, setCi and closePull for pull requests. Installation
 * tokens may read and write every repository their installation covers.
 */
export interface GithubLoopback extends LoopbackGitControls, LoopbackPullControls {
  readonly origin: string
  /** REST root to configure as the plugin's apiUrl. */
  readonly apiUrl: string
  /** Web root to configure as the plugin's webUrl. */
  readonly webUrl: string
  readonly appId: string
  readonly appSlug: string
  /** The app's private key, PKCS#1 PEM as GitHub hands it out. */
  readonly privateKey: string
  readonly clientId: string
  readonly clientSecret: string
  /** Installs the app on an account: every repository of it, or only the ones listed (names without owner). */
  install(account: string, options?: { type?: 'User' | 'Organization'; repositories?: 'all' | readonly string[] }): string
  /** Creates owner/name on the host; not covered by any installation unless one selects it. */
  addRepository(fullName: string, options?: { private?: boolean }): void
  /** Removes an installation, as uninstalling the app on GitHub does. */
  uninstall(installationId: string): void
  suspend(installationId: string): void
  /** Every request (API, web and git) answers this status until called with undefined. */
  failWith(status: number | undefined): void
  /** Every API and web request (not git) answers this status until called with undefined. */
  failApi(status: number | undefined): void
  /** A one-time sign-in code for user, valid for redirectUri. */
  issueOAuthCode(user: LoopbackUser, redirectUri: string): string
  /** Requests seen (API, web and git), with the kind of credential each carried. */
  readonly requests: readonly LoopbackRequest[]
  /** Every token this host handed out (not the ones given to acceptToken), so tests can check none leaks into logs or errors. */
  readonly issuedTokens: readonly string[]
  close(): Promise<void>
}

interface Installation {
  id: number
  account: string
  type: 'User' | 'Organization'
  repositories: 'all' | Set<string>
  suspendedAt: string | null
}

/** Starts the server on a free port. */
export async function startGithubLoopback(): Promise<GithubLoopback> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const appId = String(100000 + Math.floor(Math.random() * 800000))
  const clientId = `Iv1.${randomBytes(8).toString('hex')}`
  const clientSecret = randomBytes(20).toString('hex')
  const installations = new Map<number, Installation>()
  const repositories = new Map<string, { id: number; owner: string; name: string; private: boolean }>()
  const tokens = new Map<string, { kind: 'installation'; installationId: number } | { kind: 'user'; user: LoopbackUser }>()
  const codes = new Map<string, { user: LoopbackUser; redirectUri: string }>()
  const requests: LoopbackRequest[] = []
  const issuedTokens: string[] = []
  let failing: number | undefined
  let apiFailing: number | undefined
  let nextId = 1000

  const server = createServer((req, res) => {
    if (git.isGit(req.url)) return git.serve(req, res)
    void handle(req).then(
      (reply) => send(res, reply),
      () => send(res, { status: 500, body: { message: 'loopback failure' } }),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const installationJson = (i: Installation) => ({
    id: i.id,
    app_id: Number(appId),
    app_slug: 'svc-test-app',
    target_type: i.type,
    account: { login: i.account, id: i.id + 1, type: i.type },
    repository_selection: i.repositories === 'all' ? 'all' : 'selected',
    suspended_at: i.suspendedAt,
    html_url: i.type === 'Organization' ? `${origin}/organizations/${i.account}/settings/installations/${i.id}` : `${origin}/settings/installations/${i.id}`,
  })
  const covers = (i: Installation, owner: string, name: string): boolean =>
    i.account === owner && repositories.has(`${owner}/${name}`) && (i.repositories === 'all' || i.repositories.has(name))
  const canRead = (auth: Auth, fullName: string): boolean => {
    const [owner, name] = fullName.split('/') as [string, string]
    const installation = auth.kind === 'installation' ? installations.get(auth.installationId) : undefined
    if (installation) return !installation.suspendedAt && covers(installation, owner, name)
    return auth.kind === 'personal' && repositories.has(fullName) && (auth.repositories === 'all' || auth.repositories.has(fullName))
  }
  // An installation writes what it reads (the test app is granted contents and pull requests write); a personal token as acceptToken said.
  const canWrite = (auth: Auth, fullName: string): boolean => canRead(auth, fullName) && (auth.kind !== 'personal' || auth.write)
  const git = createLoopbackGit({
    origin,
    ensureRepository: (fullName) => void (repositories.has(fullName) || controls.addRepository(fullName)),
    access(credential, fullName) {
      const auth = authenticate(credential)
      return { auth: auth.kind, granted: canRead(auth, fullName), writable: canWrite(auth, fullName) }
    },
    failing: () => failing,
    record: (request) => void requests.push(request),
  })
  const pulls = createLoopbackPulls({ origin, bareDir: git.bareDir })
  const onAccount = (login: string, type: Installation['type']) => [...installations.values()].find((i) => i.account === login.toLowerCase() && i.type === type)

  async function handle(req: IncomingMessage): Promise<Reply> {
    const url = new URL(req.url ?? '/', origin)
    const auth = authenticate(req.headers.authorization)
    requests.push({ method: req.method ?? '', path: url.pathname, auth: auth.kind })
    const status = failing ?? apiFailing
    if (status !== undefined) return { status, body: { message: 'Server Error' } }
    const body = req.method === 'POST' || req.method === 'PATCH' ? await readBody(req) : {}
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') return exchange(body)
    const access = { authenticated: auth.kind !== 'none' && auth.kind !== 'bad', read: (name: string) => canRead(auth, name), write: (name: string) => canWrite(auth, name) }
    const pull = await pulls.handle(req.method ?? '', url, body, access)
    if (pull) return pull
    if (!url.pathname.startsWith('/api/v3/')) return { status: 404, body: { message: 'Not Found' } }
    const parts = url.pathname.slice('/api/v3/'.length).split('/').map((p) => decodeURIComponent(p).toLowerCase())
    const route = routeOf(ROUTES, req.method ?? '', parts)
    const notFound: Reply = { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } }
    const needJwt: Reply = { status: 401, body: { message: 'A JSON web token could not be decoded' } }
    const commit = git.commitRoute(req.method, url.pathname)
    if (commit) return canRead(auth, commit.fullName) ? git.commit(commit.fullName, commit.ref) : notFound
    const tree = git.treeRoute(req.method, url.pathname)
    if (tree) return canRead(auth, tree.fullName) ? git.tree(tree.fullName, tree.tree) : notFound
    switch (route) {
      case 'GET app/installations/:': {
        if (auth.kind !== 'jwt') return needJwt
        const found = installations.get(Number(parts[2]))
        return found ? { status: 200, body: installationJson(found) } : notFound
      }
      case 'POST app/installations/:/access_tokens': {
        if (auth.kind !== 'jwt') return needJwt
        const found = installations.get(Number(parts[2]))
        if (!found) return notFound
        if (found.suspendedAt) return { status: 403, body: { message: 'This installation has been suspended' } }
        const token = `ghs_${randomBytes(18).toString('hex')}`
        tokens.set(token, { kind: 'installation', installationId: found.id })
        issuedTokens.push(token)
        return { status: 201, body: { token, expires_at: new Date(Date.now() + 3600_000).toISOString(), permissions: { metadata: 'read', contents: 'write', pull_requests: 'write', checks: 'read', statuses: 'read' } } }
      }
      case 'GET repos/:/:/installation': {
        if (auth.kind !== 'jwt') return needJwt
        const found = [...installations.values()].find((i) => covers(i, parts[1]!, parts[2]!))
        return found ? { status: 200, body: installationJson(found) } : notFound
      }
      case 'GET users/:/installation':
      case 'GET orgs/:/installation': {
        if (auth.kind !== 'jwt') return needJwt
        const found = onAccount(parts[1]!, parts[0] === 'users' ? 'User' : 'Organization')
        return found ? { status: 200, body: installationJson(found) } : notFound
      }
      case 'GET repos/:/:': {
        const fullName = `${parts[1]}/${parts[2]}`
        const repo = repositories.get(fullName)
        if (!repo || !canRead(auth, fullName)) return notFound
        return { status: 200, body: { id: repo.id, name: repo.name, full_name: fullName, private: repo.private, owner: { login: repo.owner }, ...git.repositoryFields(fullName) } }
      }
      case 'GET user':
        if (auth.kind !== 'user') return { status: 401, body: { message: 'Requires authentication' } }
        return { status: 200, body: { id: auth.user.id, login: auth.user.login, name: auth.user.name ?? null, email: auth.user.email ?? null } }
      case 'GET user/emails':
        if (auth.kind !== 'user') return { status: 401, body: { message: 'Requires authentication' } }
        return auth.user.emails ? { status: 200, body: auth.user.emails } : { status: 403, body: { message: 'Resource not accessible by integration' } }
      default:
        return notFound
    }
  }

  function exchange(body: Record<string, unknown>): Reply {
    // GitHub answers 200 with an error field for every refusal of the web flow.
    if (body.client_id !== clientId || body.client_secret !== clientSecret) return { status: 200, body: { error: 'incorrect_client_credentials' } }
    const grant = codes.get(String(body.code))
    codes.delete(String(body.code))
    if (!grant) return { status: 200, body: { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' } }
    if (grant.redirectUri !== body.redirect_uri) return { status: 200, body: { error: 'redirect_uri_mismatch' } }
    const token = `ghu_${randomBytes(18).toString('hex')}`
    tokens.set(token, { kind: 'user', user: grant.user })
    issuedTokens.push(token)
    return { status: 200, body: { access_token: token, token_type: 'bearer', scope: '' } }
  }

  type Auth = { kind: 'none' | 'bad' | 'jwt' } | { kind: 'installation'; installationId: number } | { kind: 'user'; user: LoopbackUser } | { kind: 'personal'; repositories: 'all' | ReadonlySet<string>; write: boolean }
  /** header: an Authorization header (token, Bearer or Basic), or a bare credential from git. */
  function authenticate(header: string | undefined): Auth {
    if (!header) return { kind: 'none' }
    const credential = basicPassword(header) ?? header.replace(/^(bearer|token)\s+/i, '')
    const granted = tokens.get(credential)
    if (granted?.kind === 'installation') return { kind: 'installation', installationId: granted.installationId }
    if (granted?.kind === 'user') return { kind: 'user', user: granted.user }
    const personal = git.personalToken(credential)
    if (personal) return { kind: 'personal', ...personal }
    return verifyAppJwt(credential, publicKey, appId) ? { kind: 'jwt' } : { kind: 'bad' }
  }

  const controls: GithubLoopback = {
    ...git.controls,
    ...pulls.controls,
    origin,
    apiUrl: `${origin}/api/v3`,
    webUrl: origin,
    appId,
    appSlug: 'svc-test-app',
    privateKey: privateKey.export({ type: 'pkcs1', format: 'pem' }) as string,
    clientId,
    clientSecret,
    install(account, options = {}) {
      const id = nextId++
      const repos = options.repositories === undefined || options.repositories === 'all' ? 'all' : new Set(options.repositories.map((r) => r.toLowerCase()))
      installations.set(id, { id, account: account.toLowerCase(), type: options.type ?? 'User', repositories: repos, suspendedAt: null })
      return String(id)
    },
    addRepository(fullName, options = {}) {
      const [owner, name] = fullName.toLowerCase().split('/') as [string, string]
      repositories.set(`${owner}/${name}`, { id: nextId++, owner, name, private: options.private ?? false })
    },
    uninstall: (id) => void installations.delete(Number(id)),
    suspend(id) {
      const found = installations.get(Number(id))
      if (found) found.suspendedAt = new Date().toISOString()
    },
    failWith(status) {
      failing = status
    },
    failApi(status) {
      apiFailing = status
    },
    issueOAuthCode(user, redirectUri) {
      const code = randomBytes(10).toString('hex')
      codes.set(code, { user, redirectUri })
      return code
    },
    requests,
    issuedTokens,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        // fetch keeps connections alive; close() alone would wait for them to idle out.
        server.closeAllConnections()
      }),
  }
  return controls
}

const ROUTES = [
  'GET app/installations/:',
  'POST app/installations/:/access_tokens',
  'GET repos/:/:/installation',
  'GET users/:/installation',
  'GET orgs/:/installation',
  'GET repos/:/:',
  'GET user',
  'GET user/emails',
]

/** An http origin on 127.0.0.1 where nothing listens: connecting is refused at once. */
export async function closedOrigin(): Promise<string> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as AddressInfo
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return `http://127.0.0.1:${port}`
}
