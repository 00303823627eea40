/**
 * The dashboard's cookies: names, parsing and Set-Cookie lines. Every cookie is HttpOnly,
 * SameSite=Lax and Path=/; over https it is Secure and carries the __Host- prefix, which browsers
 * refuse to accept from a sibling subdomain or over plain http.
 */

export type CookieName = 'session' | 'form' | 'oauth'

const BASE_NAMES: Readonly<Record<CookieName, string>> = {
  /** The sign-in token. */
  session: 'svc_session',
  /** The CSRF token of forms shown before sign-in (double submit). */
  form: 'svc_form',
  /** The OAuth state binding, for the minutes a code-host sign-in takes. */
  oauth: 'svc_oauth',
}

/** The cookie's name as sent to browsers. */
export function cookieName(name: CookieName, secure: boolean): string {
  return secure ? `__Host-${BASE_NAMES[name]}` : BASE_NAMES[name]
}

/** Parses a Cookie header; the first of two cookies with one name wins, as browsers send the most specific first. */
export function parseCookies(header: string): Map<string, string> {
  const cookies = new Map<string, string>()
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=')
    if (at < 0) continue
    const name = pair.slice(0, at).trim()
    const value = pair.slice(at + 1).trim()
    if (name && !cookies.has(name)) cookies.set(name, value)
  }
  return cookies
}

/** A Set-Cookie value; maxAgeSeconds 0 deletes the cookie. Values are our own base64url tokens. */
export function setCookie(name: CookieName, value: string, options: { secure: boolean; maxAgeSeconds: number }): string {
  const parts = [`${cookieName(name, options.secure)}=${value}`, 'Path=/', `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`, 'HttpOnly', 'SameSite=Lax']
  if (options.secure) parts.push('Secure')
  return parts.join('; ')
}

/** A Set-Cookie value that removes the cookie. */
export function clearCookie(name: CookieName, secure: boolean): string {
  return setCookie(name, '', { secure, maxAgeSeconds: 0 })
}
