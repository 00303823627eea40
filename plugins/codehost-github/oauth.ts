/**
 * Sign-in with GitHub for the dashboard: the authorize URL and the code exchange (web flow), then
 * who signed in (GET /user, /user/emails). The user's token is used for those two reads and
 * dropped; it is never stored or logged.
 */
import { CodehostOAuthRejected, type CodehostIdentity } from '../../shared/plugins/types.js'
import { github, unlessNotFound, type GithubClients } from './github-client.js'
import { withoutTrailingSlash } from './settings.js'

/** What the OAuth part needs from the settings. */
export interface OAuthSettings {
  readonly clientId: string
  readonly clientSecret: string
  readonly webUrl: string
}

/** The codehost plugin's oauth object for one app. */
export function createOAuth(clients: GithubClients, settings: OAuthSettings) {
  const webUrl = withoutTrailingSlash(settings.webUrl)
  return {
    authorizeUrl(state: string, redirectUri: string): string {
      const url = new URL(`${webUrl}/login/oauth/authorize`)
      url.searchParams.set('client_id', settings.clientId)
      url.searchParams.set('redirect_uri', redirectUri)
      url.searchParams.set('state', state)
      // OAuth-app style scopes; a GitHub App ignores them and grants its user permissions instead.
      url.searchParams.set('scope', 'read:user user:email')
      return url.href
    },
    async exchange(code: string, redirectUri: string): Promise<CodehostIdentity> {
      const token = await exchangeCode(clients, settings, webUrl, code, redirectUri)
      const user = clients.user(token)
      const me = await github(clients, () => user.rest.users.getAuthenticated())
      // Needs the app's "email addresses" user permission; without it, the profile's public email.
      const emails = await unlessNotFound(clients, () => user.rest.users.listEmailsForAuthenticatedUser()).catch(() => undefined)
      const chosen = emails?.data.find((e) => e.primary && e.verified) ?? emails?.data.find((e) => e.verified)
      return {
        id: String(me.data.id),
        login: me.data.login,
        email: chosen?.email ?? me.data.email ?? undefined,
        name: me.data.name ?? undefined,
      }
    },
  }
}

async function exchangeCode(clients: GithubClients, settings: OAuthSettings, webUrl: string, code: string, redirectUri: string): Promise<string> {
  const response = await github(clients, () =>
    clients.user().request('POST /login/oauth/access_token', {
      baseUrl: webUrl,
      headers: { accept: 'application/json' },
      client_id: settings.clientId,
      client_secret: settings.clientSecret,
      code,
      redirect_uri: redirectUri,
    }),
  )
  const data = response.data as { access_token?: string; error?: string }
  if (typeof data.access_token === 'string' && data.access_token !== '') return data.access_token
  // GitHub answers 200 with an error code for a bad, used or expired code; only the code is repeated.
  const reason = typeof data.error === 'string' && /^[a-z_]{1,64}$/.test(data.error) ? data.error : 'no token'
  throw new CodehostOAuthRejected(`GitHub did not accept the sign-in (${reason}): the code expired, was used already or was for another address. Sign in again.`)
}
