/**
 * The OAuth state parameter, bound to the browser that started the sign-in. The browser keeps a
 * short-lived cookie holding a random nonce, the start time and where to return; the state sent
 * to the code host is the SHA-256 of that cookie. A callback is accepted only from the browser
 * holding the matching cookie, so nobody can sign a victim in to their own account (login CSRF),
 * and a state seen in the code host's logs reveals nothing that would forge the cookie.
 */
import { MINUTE } from '../../../shared/time.js'
import { digestText, randomToken, sameToken } from './tokens.js'

/** How long a person has on the code host's consent page. */
export const OAUTH_STATE_TTL_MS = 10 * MINUTE

export interface OAuthStart {
  /** For the short-lived state cookie. */
  cookieValue: string
  /** For the code host's authorize URL. */
  state: string
}

/** The longest path (with its query) a sign-in returns to; a longer one returns to "/". */
export const NEXT_PATH_MAX = 512

/** Where a person may be sent after signing in: a path on this site, never another host. */
export function safeNextPath(next: string | null | undefined): string {
  if (!next || next.length > NEXT_PATH_MAX) return '/'
  // "//host" and "/\host" are read by browsers as another host; control characters have no place in a path.
  if (!next.startsWith('/') || next.startsWith('//') || next.includes('\\') || hasControlCharacter(next)) return '/'
  return next
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x20 || code === 0x7f) return true
  }
  return false
}

/** Begins a sign-in that returns to next. */
export function startOAuth(next: string, now = Date.now()): OAuthStart {
  const cookieValue = [randomToken(), Math.floor(now / 1000), Buffer.from(safeNextPath(next)).toString('base64url')].join('.')
  return { cookieValue, state: digestText(cookieValue) }
}

/**
 * Checks a callback's state against the browser's cookie; answers where to go next, or undefined
 * when the state does not belong to this browser or the sign-in took too long.
 */
export function finishOAuth(cookieValue: string | undefined, state: string | undefined, now = Date.now()): { next: string } | undefined {
  if (!cookieValue || !state) return undefined
  if (!sameToken(digestText(cookieValue), state)) return undefined
  const [, issuedAt, next] = cookieValue.split('.')
  const started = Number(issuedAt) * 1000
  if (!Number.isFinite(started) || now - started > OAUTH_STATE_TTL_MS || started - now > MINUTE) return undefined
  return { next: safeNextPath(Buffer.from(next ?? '', 'base64url').toString('utf8')) }
}
