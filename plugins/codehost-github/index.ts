/**
 * codehost-github: a GitHub App as the code host. Checks whether the app can see a repository
 * (for the attach endpoint), hands out its install link, and signs people in with GitHub OAuth
 * when the app's client id and secret are configured. Uses the official clients (@octokit/rest,
 * @octokit/auth-app); apiUrl and webUrl point it at GitHub Enterprise Server or a test server.
 */
import { createPrivateKey } from 'node:crypto'
import type { CodehostPlugin, PluginModule } from '../../shared/plugins/types.js'
import { checkRepository } from './check-repository.js'
import { createGithubClients } from './github-client.js'
import { createOAuth } from './oauth.js'
import { configSchema, withoutTrailingSlash, type GithubSettings } from './settings.js'

/** The plugin module the loader imports: manifest plus factory. */
const plugin: PluginModule<'codehost'> = {
  manifest: { name: 'codehost-github', kind: 'codehost', version: '1.0.0', configSchema },
  create(raw, context): CodehostPlugin {
    const settings = raw as unknown as GithubSettings
    assertReadableKey(settings.privateKey)
    const clients = createGithubClients(settings, context.log)
    const installUrl = `${withoutTrailingSlash(settings.webUrl)}/apps/${settings.appSlug}/installations/new`
    const { clientId, clientSecret } = settings
    return {
      installUrl: () => installUrl,
      checkRepository: (repo, knownInstallationId) => checkRepository(clients, installUrl, repo, knownInstallationId),
      oauth: clientId !== undefined && clientSecret !== undefined ? createOAuth(clients, { clientId, clientSecret, webUrl: settings.webUrl }) : undefined,
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
