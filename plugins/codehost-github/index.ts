/**
 * codehost-github: GitHub as the code host. With a GitHub App it checks whether the app can see a
 * repository (for the attach endpoint), hands out its install link, and signs people in with
 * GitHub OAuth when the app's client id and secret are configured. With the app's installation
 * tokens or a personal token (CODEHOST_TOKEN) it reads repositories: their default branch, the
 * commit a release names, and shallow clones over git; and delivers fixes: pushes a branch, opens
 * and updates pull requests, comments on them and reads their CI. Uses the official clients (@octokit/rest,
 * @octokit/auth-app) and the git command line; apiUrl and webUrl point it at GitHub Enterprise
 * Server or a test server.
 */
import { createPrivateKey } from 'node:crypto'
import type { CodehostPlugin, PluginModule } from '../../shared/plugins/types.js'
import { checkRepository, checkRepositoryWithToken } from './check-repository.js'
import { createGithubApi, createGithubClients } from './github-client.js'
import { createOAuth } from './oauth.js'
import { createPullRequestAccess } from './pull-requests.js'
import { createRepositoryAccess } from './repositories.js'
import { appSettings, configSchema, withoutTrailingSlash, type GithubSettings } from './settings.js'

/** The plugin module the loader imports: manifest plus factory. */
const plugin: PluginModule<'codehost'> = {
  manifest: { name: 'codehost-github', kind: 'codehost', version: '1.2.0', configSchema },
  create(raw, context): CodehostPlugin {
    const settings = raw as unknown as GithubSettings
    const app = appSettings(settings)
    if (app) assertReadableKey(app.privateKey)
    const api = createGithubApi(settings, context.log)
    const clients = app ? createGithubClients(app, context.log) : undefined
    // Token only: no app to install, so no link (callers treat '' as none).
    const installUrl = app ? `${withoutTrailingSlash(settings.webUrl)}/apps/${app.appSlug}/installations/new` : ''
    const { clientId, clientSecret, token } = settings
    const access = { api, token, installationToken: clients?.installationToken, origins: [new URL(settings.apiUrl).origin, new URL(settings.webUrl).origin], log: context.log }
    const repositories = createRepositoryAccess({ ...access, cloneTimeoutMs: settings.cloneTimeoutMs })
    const pullRequests = createPullRequestAccess({ ...access, pushTimeoutMs: settings.cloneTimeoutMs })
    return {
      installUrl: () => installUrl,
      checkRepository: (repo, knownInstallationId) =>
        clients ? checkRepository(clients, installUrl, repo, knownInstallationId) : checkRepositoryWithToken(api, token ?? '', repo),
      oauth: clients && clientId !== undefined && clientSecret !== undefined ? createOAuth(clients, { clientId, clientSecret, webUrl: settings.webUrl }) : undefined,
      repositories,
      pullRequests,
    }
  },
}

export default plugin

/** Fails at start-up, not at the first attach, when the key cannot sign; the key itself is never quoted. */
function assertReadableKey(pem: string): void {
  try {
    createPrivateKey(pem)
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unreadable'
    throw new Error(`privateKey is not a readable private key (${code}). Use the .pem file downloaded from the GitHub App's settings, whole.`)
  }
}
