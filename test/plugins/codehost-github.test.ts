// codehost-github through the loader, with the official Octokit clients talking real HTTP to a
// GitHub stand-in on 127.0.0.1: the codehost conformance suite, plus what is particular to GitHub.
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { codehostConformance, type CodehostSituation } from '../../plugins/conformance/codehost.js'
import { capturingLogger } from '../../plugins/conformance/leaks.js'
import { importPluginModule, loadPlugin } from '../../shared/plugins/loader.js'
import { PluginError } from '../../shared/plugins/plugin-error.js'
import { closedOrigin, startGithubLoopback } from '../helpers/github-loopback.js'

const github = await startGithubLoopback()
t.teardown(() => github.close())

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

t.test('codehost-github passes the codehost conformance suite', async (t) => {
  const module = await importPluginModule('codehost', 'codehost-github')
  await codehostConformance(t, module, {
    settings: ({ oauth }) => settings(oauth),
    unreachableSettings: async () => ({ ...settings(), apiUrl: `${await closedOrigin()}/api/v3` }),
    arrange: async (situation, owner) => arrange(situation, owner),
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
  t.match((missing as Error).message, /"privateKey" is required; "appSlug" is required/)
})
