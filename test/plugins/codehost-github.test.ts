// codehost-github through the loader, with the official Octokit clients talking real HTTP to a
// GitHub stand-in on 127.0.0.1 that serves real repositories with git's own http-backend: the
// codehost conformance suite, plus what is particular to GitHub.
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import t from 'tap'
import { codehostConformance, type CodehostSituation, type GitRepositoryArrangement } from '../../plugins/conformance/codehost.js'
import { commandLinesDuring } from '../../plugins/conformance/codehost-repositories.js'
import { capturingLogger } from '../../plugins/conformance/leaks.js'
import { importPluginModule, loadPlugin } from '../../shared/plugins/loader.js'
import { PluginError } from '../../shared/plugins/plugin-error.js'
import { addCommit, makeRepository } from '../helpers/loopback/git-repository.js'
import { closedOrigin, startGithubLoopback } from '../helpers/loopback/github-loopback.js'

const github = await startGithubLoopback()
const scratch = await mkdtemp(join(tmpdir(), 'svc-codehost-github-'))
t.teardown(async () => {
  await github.close()
  await rm(scratch, { recursive: true, force: true })
})

/** CODEHOST_TOKEN: reads the repositories arrangeGitRepository made, and no others. */
const personalToken = `github_pat_${randomBytes(24).toString('hex')}`
const readable: string[] = []
const tokenSettings = (): Record<string, unknown> => ({ token: personalToken, apiUrl: github.apiUrl, webUrl: github.webUrl })

const settings = (oauth = false): Record<string, unknown> => ({
  appId: github.appId,
  privateKey: github.privateKey,
  appSlug: github.appSlug,
  apiUrl: github.apiUrl,
  webUrl: github.webUrl,
  ...(oauth ? { clientId: github.clientId, clientSecret: github.clientSecret } : {}),
})

/** Arranges one fresh owner and repository in the situation asked for. */
function arrange(situation: CodehostSituation, kind: 'user' | 'organization'): { repo: string; installationId: string } {
  const owner = `${kind === 'user' ? 'u' : 'org'}-${randomBytes(4).toString('hex')}`
  const repo = `${owner}/app`
  const type = kind === 'user' ? 'User' : 'Organization'
  github.addRepository(repo, { private: situation === 'visible_private' })
  switch (situation) {
    case 'visible_public':
    case 'visible_private':
      return { repo, installationId: github.install(owner, { type }) }
    case 'not_installed':
      return { repo, installationId: '' }
    case 'not_in_installation':
      github.addRepository(`${owner}/other`)
      return { repo, installationId: github.install(owner, { type, repositories: ['other'] }) }
    case 'installation_gone': {
      const installationId = github.install(owner, { type })
      github.uninstall(installationId)
      return { repo, installationId }
    }
    case 'suspended': {
      const installationId = github.install(owner, { type })
      github.suspend(installationId)
      return { repo, installationId }
    }
  }
}

/** Writes files (path → text) under a fresh folder in scratch. */
async function folder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(scratch, 'src-'))
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true })
    await writeFile(join(dir, path), text)
  }
  return dir
}

const OLDER = { 'README.md': '# app\n', 'src/index.js': 'export const answer = 41\n' }
const HEAD = { ...OLDER, 'src/index.js': 'export const answer = 42\n', 'src/lib/util.js': 'export const twice = (n) => 2 * n\n' }
let built: Promise<{ bareDir: string; older: string; head: string }> | undefined

/** One bare repository with two commits (older tagged v1.0.0), served under as many names as tests need. */
function twoCommits(): Promise<{ bareDir: string; older: string; head: string }> {
  built ??= (async () => {
    const { bareDir, commit: older } = await makeRepository(await folder(OLDER), { tag: 'v1.0.0', parentDir: scratch })
    return { bareDir, older, head: await addCommit(bareDir, await folder(HEAD)) }
  })()
  return built
}

/** A repository with contents, readable by its installation and, when readableByToken, by personalToken. */
async function arrangeGit(readableByToken: boolean): Promise<GitRepositoryArrangement> {
  const owner = `g-${randomBytes(4).toString('hex')}`
  const repo = `${owner}/app`
  const { bareDir, older, head } = await twoCommits()
  github.serveGit(repo, bareDir)
  if (readableByToken) readable.push(repo)
  github.acceptToken(personalToken, readable)
  const installationId = github.install(owner)
  return { repo, installationId, defaultBranch: 'main', webUrl: `${github.webUrl}/${repo}`, head, older, tag: 'v1.0.0', files: { head: Object.keys(HEAD), older: Object.keys(OLDER) } }
}

/** A repository with contents on an owner whose installation covers only another repository; not readable by personalToken. */
async function arrangeHidden(): Promise<{ repo: string; installationId: string }> {
  const owner = `h-${randomBytes(4).toString('hex')}`
  github.serveGit(`${owner}/secret`, (await twoCommits()).bareDir)
  github.addRepository(`${owner}/other`)
  return { repo: `${owner}/secret`, installationId: github.install(owner, { repositories: ['other'] }) }
}

t.test('codehost-github passes the codehost conformance suite', async (t) => {
  const module = await importPluginModule('codehost', 'codehost-github')
  await codehostConformance(t, module, {
    settings: ({ oauth }) => settings(oauth),
    tokenSettings,
    unreachableSettings: async (options) => ({ ...(options?.token ? tokenSettings() : settings()), apiUrl: `${await closedOrigin()}/api/v3` }),
    arrange: async (situation, owner) => arrange(situation, owner),
    arrangeGitRepository: () => arrangeGit(true),
    arrangeHiddenRepository: arrangeHidden,
    failing: (on) => github.failWith(on ? 500 : undefined),
    signInCode(redirectUri) {
      const id = 4000 + Math.floor(Math.random() * 1000)
      const login = `person-${id}`
      const emails = [{ email: 'other@example.com', primary: false, verified: true }, { email: `${login}@example.com`, primary: true, verified: true }]
      const code = github.issueOAuthCode({ id, login, name: 'Ada Person', email: 'public@example.com', emails }, redirectUri)
      return { code, identity: { id: String(id), login, email: `${login}@example.com`, name: 'Ada Person' } }
    },
    authorize: { url: `${github.webUrl}/login/oauth/authorize`, clientId: github.clientId },
    installUrlPrefix: `${github.webUrl}/apps/${github.appSlug}/installations/new`,
    secrets: () => [
      github.privateKey,
      ...github.privateKey.split('\n').filter((line) => line.length > 20 && !line.startsWith('-----')),
      github.clientSecret,
      personalToken,
      ...github.issuedTokens,
    ],
  })
})

t.test('asks as the app (JWT) and reads privacy with an installation token', async (t) => {
  const codehost = await loadPlugin('codehost', 'codehost-github', settings(), { log: capturingLogger().log })
  const { repo } = arrange('visible_private', 'user')
  const before = github.requests.length
  t.match(await codehost.checkRepository(repo, ''), { status: 'visible', private: true })
  const seen = github.requests.slice(before).map((r) => `${r.method} ${r.path.replace(/installations\/\d+/, 'installations/:id')} ${r.auth}`)
  t.same(seen, [
    `GET /api/v3/repos/${repo}/installation jwt`,
    'POST /api/v3/app/installations/:id/access_tokens jwt',
    `GET /api/v3/repos/${repo} installation`,
  ])
})

t.test('add_repo_url is the installation settings page of a user or an organisation', async (t) => {
  const codehost = await loadPlugin('codehost', 'codehost-github', settings(), { log: capturingLogger().log })
  const user = arrange('not_in_installation', 'user')
  t.match(await codehost.checkRepository(user.repo, ''), { addRepoUrl: `${github.origin}/settings/installations/${user.installationId}` })
  const org = arrange('not_in_installation', 'organization')
  const owner = org.repo.split('/')[0]
  t.match(await codehost.checkRepository(org.repo, ''), { addRepoUrl: `${github.origin}/organizations/${owner}/settings/installations/${org.installationId}` })
})

t.test('sign-in falls back to the profile email when the app may not read email addresses', async (t) => {
  const codehost = await loadPlugin('codehost', 'codehost-github', settings(true), { log: capturingLogger().log })
  const code = github.issueOAuthCode({ id: 77, login: 'no-emails', email: 'shown@example.com' }, 'http://localhost/cb')
  t.same(await codehost.oauth?.exchange(code, 'http://localhost/cb'), { id: '77', login: 'no-emails', email: 'shown@example.com', name: undefined })
})

t.test('a key GitHub does not know is an error about credentials, not an outage', async (t) => {
  const { generateKeyPairSync } = await import('node:crypto')
  const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }) as string
  const codehost = await loadPlugin('codehost', 'codehost-github', { ...settings(), privateKey: stranger }, { log: capturingLogger().log })
  const error = await t.rejects(codehost.checkRepository(arrange('visible_public', 'user').repo, ''))
  t.equal((error as Error).name, 'Error')
  t.match((error as Error).message, /refused the app's credentials \(401\)/)
})

t.test('the loader explains bad settings without repeating a value', async (t) => {
  const log = capturingLogger().log
  const notAKey = '-----BEGIN RSA PRIVATE KEY-----\nc2VjcmV0LWJ1dC1ub3QtYS1rZXk=\n-----END RSA PRIVATE KEY-----\n'
  const unreadable = await t.rejects(loadPlugin('codehost', 'codehost-github', { ...settings(), privateKey: notAKey }, { log }))
  t.type(unreadable, PluginError)
  t.match((unreadable as Error).message, /could not start: privateKey is not a readable private key/)
  t.notMatch((unreadable as Error).message, /c2VjcmV0/, 'the key is not quoted')
  const half = await t.rejects(loadPlugin('codehost', 'codehost-github', { ...settings(), clientId: 'Iv1.x' }, { log }, { settingSources: { clientSecret: 'CODEHOST_APP_CLIENT_SECRET' } }))
  t.match((half as Error).message, /"clientSecret" \(set by CODEHOST_APP_CLIENT_SECRET\) is required when "clientId" is set/)
  const missing = await t.rejects(loadPlugin('codehost', 'codehost-github', { appId: '1' }, { log }))
  t.match((missing as Error).message, /"privateKey" is required when "appId" is set; "appSlug" is required when "appId" is set/)
  const neither = await t.rejects(loadPlugin('codehost', 'codehost-github', {}, { log }, { settingSources: { appId: 'CODEHOST_APP_ID', token: 'CODEHOST_TOKEN' } }))
  t.match((neither as Error).message, /"appId" \(set by CODEHOST_APP_ID\) is required; "token" \(set by CODEHOST_TOKEN\) is required/, 'neither the app nor a token')
  const signInWithoutApp = await t.rejects(loadPlugin('codehost', 'codehost-github', { ...tokenSettings(), clientId: 'Iv1.x', clientSecret: 'shh' }, { log }))
  t.match((signInWithoutApp as Error).message, /"appId" is required when "clientId" is set/, 'sign-in is the app\'s')
  t.notMatch([unreadable, half, missing, neither, signInWithoutApp].map((e) => (e as Error).message).join('\n'), personalToken, 'the token is not quoted')
})

t.test('git is challenged, then sent the token as the Basic password: CODEHOST_TOKEN, or a minted installation token', async (t) => {
  const { repo, installationId } = await arrangeGit(true)
  const gitRequests = (from: number) => github.requests.slice(from).filter((r) => r.granted !== undefined || r.path.endsWith('/access_tokens'))
  const token = await loadPlugin('codehost', 'codehost-github', tokenSettings(), { log: capturingLogger().log })
  let before = github.requests.length
  const lines = await commandLinesDuring(token.repositories!.clone(repo, '', join(scratch, `c-${randomBytes(4).toString('hex')}`)))
  t.match(gitRequests(before), [{ auth: 'none', granted: false }, { auth: 'personal', granted: true }], 'asked, then the token')
  t.ok(lines?.some((line) => line.includes(' fetch ') && line.includes(`${github.origin}/${repo}.git`)), 'the watch saw git fetch, with a URL that carries no credential')
  const app = await loadPlugin('codehost', 'codehost-github', settings(), { log: capturingLogger().log })
  before = github.requests.length
  await app.repositories!.clone(repo, installationId, join(scratch, `c-${randomBytes(4).toString('hex')}`))
  t.match(gitRequests(before), [{ auth: 'jwt' }, { auth: 'none', granted: false }, { auth: 'installation', granted: true }], 'a token minted as the app, then sent to git')
  const tagged = await token.repositories!.clone(repo, '', join(scratch, `c-${randomBytes(4).toString('hex')}`), { commit: 'v1.0.0' })
  t.equal(tagged.commit, (await twoCommits()).older, 'a release name is resolved to its commit first')
})

t.test('git refusals are RepositoryDenied, outages and a silent server CodehostUnreachable, and nothing is left running', async (t) => {
  const { repo } = await arrangeGit(true)
  const codehost = await loadPlugin('codehost', 'codehost-github', { ...tokenSettings(), cloneTimeoutMs: 3000 }, { log: capturingLogger().log })
  const clone = () => codehost.repositories!.clone(repo, '', join(scratch, `c-${randomBytes(4).toString('hex')}`))
  const cases: Array<[Parameters<typeof github.failGit>[0], string, RegExp]> = [
    [401, 'RepositoryDenied', /refused to let CODEHOST_TOKEN fetch .*\(Contents: read\)/],
    [403, 'RepositoryDenied', /Contents: read/],
    [502, 'CodehostUnreachable', /could not be reached/],
    ['reset', 'CodehostUnreachable', /could not be reached/],
    ['hang', 'CodehostUnreachable', /did not finish within 3 s/],
  ]
  try {
    for (const [mode, name, message] of cases) {
      github.failGit(mode)
      const started = Date.now()
      const error = (await t.rejects(clone())) as Error
      t.equal(error.name, name, `git answering ${mode}: ${name}`)
      t.match(error.message, message)
      t.notMatch(error.message, personalToken)
      t.ok(Date.now() - started < 10_000, 'within the time limit')
    }
  } finally {
    github.failGit(undefined)
  }
  const { readdirSync, readFileSync } = await import('node:fs')
  const port = new URL(github.origin).port
  const leftOver = readdirSync('/proc').filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(`127.0.0.1:${port}`)
    } catch {
      return false
    }
  })
  t.same(leftOver, [], 'no git process still talks to the host')
})

t.test('a clone address outside the configured host is refused before the token is sent anywhere', async (t) => {
  const { createServer } = await import('node:http')
  const seen: string[] = []
  const elsewhere = createServer((req, res) => void (seen.push(String(req.headers.authorization)), res.writeHead(401, { 'www-authenticate': 'Basic' }).end()))
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => elsewhere.close(() => resolve())))
  const repo = `x-${randomBytes(4).toString('hex')}/app`
  github.serveGit(repo, (await twoCommits()).bareDir, { cloneUrl: `http://127.0.0.1:${(elsewhere.address() as { port: number }).port}/${repo}.git` })
  github.acceptToken(personalToken, [...readable, repo])
  const codehost = await loadPlugin('codehost', 'codehost-github', tokenSettings(), { log: capturingLogger().log })
  const error = (await t.rejects(codehost.repositories!.clone(repo, '', join(scratch, 'elsewhere')))) as Error
  t.match(error.message, /outside the configured host/)
  t.same(seen, [], 'the other server was never asked')
})

t.test('an installation removed on GitHub cannot read repositories: RepositoryDenied, saying to install again', async (t) => {
  const { repo, installationId } = await arrangeGit(false)
  github.uninstall(installationId)
  const codehost = await loadPlugin('codehost', 'codehost-github', settings(), { log: capturingLogger().log })
  const error = await t.rejects(codehost.repositories!.info(repo, installationId))
  t.match(error, { name: 'RepositoryDenied', message: /installation \d+ was removed or suspended on GitHub \(404\): install the app again/ })
})

t.test('with a token alone, a repository it cannot read is invalid, saying what to grant', async (t) => {
  const codehost = await loadPlugin('codehost', 'codehost-github', tokenSettings(), { log: capturingLogger().log })
  const access = await codehost.checkRepository((await arrangeHidden()).repo, '')
  t.match(access, { status: 'invalid', message: /CODEHOST_TOKEN cannot see .*Contents: read/ })
})
