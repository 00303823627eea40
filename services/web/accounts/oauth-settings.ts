/**
 * Where the code host sends people back after OAuth sign-in, and what start-up should warn about.
 * The product we follow sends people to port 3000 when DASHBOARD_ORIGIN is missing; we fall back to
 * the service's own address instead and say so at start. With DASHBOARD_ORIGIN set, a sign-in
 * started on another host is moved to the dashboard's host first, so the state cookie, the callback
 * and the new session cookie all live on one host.
 */
import type { Config } from '../../../shared/config/index.js'

/** The OAuth callback URL registered with the code host app. */
export function oauthRedirectUri(settings: { dashboardOrigin: string | undefined; baseUrl: string }): string {
  return `${(settings.dashboardOrigin ?? settings.baseUrl).replace(/\/+$/, '')}/auth/codehost/callback`
}

/** Lines to log as warnings at start-up about code-host sign-in settings; empty when all is well. */
export function oauthWarnings(config: Pick<Config, 'baseUrl' | 'dashboardOrigin' | 'secrets' | 'plugins'>): string[] {
  const { codehostAppClientId: id, codehostAppClientSecret: secret } = config.secrets
  if (!id && !secret) return []
  if (!id || !secret) {
    const missing = id ? 'CODEHOST_APP_CLIENT_SECRET' : 'CODEHOST_APP_CLIENT_ID'
    return [`Code-host sign-in is off: ${missing} is not set. Set both CODEHOST_APP_CLIENT_ID and CODEHOST_APP_CLIENT_SECRET, or neither.`]
  }
  if (!config.plugins.codehost) {
    return ['Code-host sign-in is off: CODEHOST_APP_CLIENT_ID and CODEHOST_APP_CLIENT_SECRET are set but CODEHOST_APP_ID is not. Set the app\'s id (and its slug and private key) to turn it on.']
  }
  if (config.dashboardOrigin === undefined) {
    return [
      `Code-host sign-in is configured without DASHBOARD_ORIGIN: the code host will send people back to ${oauthRedirectUri(config)}. ` +
        'Set DASHBOARD_ORIGIN to the address people open the dashboard at, and register the same callback URL in the code host app.',
    ]
  }
  return []
}
