/**
 * The conformance suite for codehost plugins: any plugin of kind codehost, ours or a stranger's,
 * runs it against a fake code host its test provides (see plugins/README.md). It covers every
 * RepoAccess status, an unreachable or failing host (CodehostUnreachable), OAuth sign-in, reading
 * repositories (codehost-repositories.ts), and that no key, secret or token reaches the log or an
 * error. A plugin that offers pullRequests (fix delivery) also runs pullRequestConformance
 * (codehost-pull-requests.ts), which needs a host that takes pushes.
 */
import type { Test } from 'tap'
import { checkPluginModule, instantiatePlugin } from '../../shared/plugins/loader.js'
import { CodehostOAuthRejected, CodehostUnreachable, type CodehostIdentity, type CodehostPlugin, type PluginModule } from '../../shared/plugins/types.js'
import { repositoryConformance, type GitRepositoryArrangement } from './codehost-repositories.js'
import { assertNoSecrets, capturingLogger } from './leaks.js'

export type { GitRepositoryArrangement } from './codehost-repositories.js'

/** A repository's situation on the code host, as the harness can arrange it. */
export type CodehostSituation = 'visible_public' | 'visible_private' | 'not_installed' | 'not_in_installation' | 'installation_gone' | 'suspended'

/** A fake code host on 127.0.0.1 the plugin can talk to, with controls. */
export interface CodehostHarness {
  /** Settings pointing the plugin at the fake host; oauth adds the sign-in client credentials. */
  settings(options: { oauth: boolean }): Record<string, unknown>
  /** Settings with a personal access token alone (CODEHOST_TOKEN, no app) that reads the repositories of arrangeGitRepository. */
  tokenSettings(): Record<string, unknown>
  /** settings() (or tokenSettings() when token) with the host's address replaced by one where nothing listens. */
  unreachableSettings(options?: { token: boolean }): Promise<Record<string, unknown>>
  /**
   * Arranges a fresh repository in situation, owned by a user or an organisation; answers its
   * owner/repo and the installation involved (for installation_gone: the removed one; '' when none).
   */
  arrange(situation: CodehostSituation, owner: 'user' | 'organization'): Promise<{ repo: string; installationId: string }>
  /** A fresh repository with two commits on its default branch, readable by its app installation and by tokenSettings()' token. */
  arrangeGitRepository(): Promise<GitRepositoryArrangement>
  /** A fresh repository with contents that neither tokenSettings()' token nor installationId (an installation on its owner, without it) can read. */
  arrangeHiddenRepository(): Promise<{ repo: string; installationId: string }>
  /** Makes the host (API, web and git) answer every request with a server error until called with false. */
  failing(on: boolean): void
  /** A one-time sign-in code for redirectUri, and who the plugin must report signed in. */
  signInCode(redirectUri: string): { code: string; identity: CodehostIdentity }
  /** Where authorize URLs must point (origin and path) and the client id they must carry. */
  readonly authorize: { readonly url: string; readonly clientId: string }
  /** What every install URL starts with. */
  readonly installUrlPrefix: string
  /** Values that must never appear in a log line or an error: keys, secrets, every token the host issued so far. */
  secrets(): string[]
}

/** Runs the codehost conformance suite against module as subtests of t. */
export async function codehostConformance(t: Test, module: unknown, harness: CodehostHarness): Promise<void> {
  const plugin = checkPluginModule('codehost', (module as PluginModule).manifest?.name ?? 'unknown', module, false)
  const { log, lines } = capturingLogger()
  const errors: string[] = []
  const create = async (settings: Record<string, unknown>): Promise<CodehostPlugin> => instantiatePlugin(plugin, 'codehost', settings, { log })
  const codehost = await create(harness.settings({ oauth: true }))
  const caught = async <T>(promise: Promise<T>): Promise<unknown> => {
    try {
      await promise
      return undefined
    } catch (error) {
      errors.push(String((error as Error).message))
      return error
    }
  }

  await t.test('the install URL points at the code host', async (t) => {
    t.ok(codehost.installUrl().startsWith(harness.installUrlPrefix), 'install URL on the host')
  })

  await t.test('a malformed repository name is invalid, with a message', async (t) => {
    for (const repo of ['', 'no-slash', 'a/b/c', '/repo', 'owner/', '../etc', 'owner/..', 'own er/repo']) {
      const access = await codehost.checkRepository(repo, '')
      t.equal(access.status, 'invalid', JSON.stringify(repo))
      if (access.status === 'invalid') t.ok(access.message.length > 0, 'says what a valid name looks like')
    }
  })

  for (const owner of ['user', 'organization'] as const) {
    await t.test(`answers every status for a repository owned by a ${owner}`, async (t) => {
      const pub = await harness.arrange('visible_public', owner)
      t.same(await codehost.checkRepository(pub.repo, ''), { status: 'visible', installationId: pub.installationId, private: false }, 'visible, public')
      t.same(await codehost.checkRepository(pub.repo, pub.installationId), { status: 'visible', installationId: pub.installationId, private: false }, 'visible with its known installation')
      const priv = await harness.arrange('visible_private', owner)
      t.same(await codehost.checkRepository(priv.repo, ''), { status: 'visible', installationId: priv.installationId, private: true }, 'visible, private')
      const none = await harness.arrange('not_installed', owner)
      t.same(await codehost.checkRepository(none.repo, ''), { status: 'not_installed', installUrl: codehost.installUrl() }, 'not installed: the install URL')
      const outside = await harness.arrange('not_in_installation', owner)
      const access = await codehost.checkRepository(outside.repo, '')
      t.match(access, { status: 'not_in_installation', installationId: outside.installationId, addRepoUrl: String }, 'installed, repository not included')
      if (access.status === 'not_in_installation' && access.addRepoUrl !== '') t.ok(URL.canParse(access.addRepoUrl), 'add_repo_url is a URL')
      const gone = await harness.arrange('installation_gone', owner)
      t.same(await codehost.checkRepository(gone.repo, gone.installationId), { status: 'installation_gone', installationId: gone.installationId }, 'the known installation was removed')
      const suspended = await harness.arrange('suspended', owner)
      t.same(await codehost.checkRepository(suspended.repo, ''), { status: 'suspended', installationId: suspended.installationId }, 'suspended')
    })
  }

  await t.test('an unreachable or failing host throws CodehostUnreachable', async (t) => {
    const { repo } = await harness.arrange('visible_public', 'user')
    const closed = await create(await harness.unreachableSettings())
    t.type(await caught(closed.checkRepository(repo, '')), CodehostUnreachable, 'nothing listening')
    harness.failing(true)
    try {
      t.type(await caught(codehost.checkRepository(repo, '')), CodehostUnreachable, 'server errors')
      t.type(await caught(codehost.checkRepository(repo, '1')), CodehostUnreachable, 'server errors while checking a known installation')
    } finally {
      harness.failing(false)
    }
    t.match(await codehost.checkRepository(repo, ''), { status: 'visible' }, 'works again once the host is back')
  })

  await t.test('OAuth: undefined without client credentials, an authorize URL, and the code exchange', async (t) => {
    const bare = await create(harness.settings({ oauth: false }))
    t.equal(bare.oauth, undefined, 'no client credentials, no sign-in')
    const oauth = codehost.oauth
    if (oauth === undefined) return t.fail('oauth must be defined when client credentials are set')
    const redirectUri = 'http://localhost:8082/auth/callback'
    const url = new URL(oauth.authorizeUrl('state-123', redirectUri))
    t.equal(`${url.origin}${url.pathname}`, harness.authorize.url, 'authorize URL on the host')
    t.equal(url.searchParams.get('client_id'), harness.authorize.clientId)
    t.equal(url.searchParams.get('redirect_uri'), redirectUri)
    t.equal(url.searchParams.get('state'), 'state-123')
    const { code, identity } = harness.signInCode(redirectUri)
    t.same(await oauth.exchange(code, redirectUri), identity, 'who signed in')
    t.type(await caught(oauth.exchange(code, redirectUri)), CodehostOAuthRejected, 'a used code is refused')
    t.type(await caught(oauth.exchange('not-a-code', redirectUri)), CodehostOAuthRejected, 'an unknown code is refused')
    const other = harness.signInCode(redirectUri)
    t.type(await caught(oauth.exchange(other.code, 'http://elsewhere.example/cb')), CodehostOAuthRejected, 'a code for another redirect URI is refused')
  })

  await repositoryConformance(t, { harness, create, caught })

  await t.test('no key, secret or token reaches the log or an error', async (t) => {
    t.ok(errors.length >= 15, `errors were collected from the subtests above (${errors.length})`)
    assertNoSecrets(t, [...errors, ...lines].join('\n'), harness.secrets(), `${errors.length} errors and ${lines.length} log lines`)
  })
}
