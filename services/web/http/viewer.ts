/**
 * Who is looking at a page, and the checks every form post passes: same origin, and the CSRF
 * token of the person's session (or, before sign-in, of the browser's form cookie) sent back.
 */
import { NEXT_PATH_MAX } from '../accounts/oauth-state.js'
import { randomToken, sameToken } from '../accounts/tokens.js'
import { getWebSession, type WebSession } from '../accounts/web-sessions.js'
import { cookieName, setCookie } from './cookies.js'
import type { DashboardDeps } from './deps.js'
import type { PageRequest } from './request.js'
import { PageError } from './respond.js'

/** How long a signed-out form (sign-in, sign-up) stays valid in a tab left open. */
const FORM_COOKIE_SECONDS = 24 * 60 * 60

export interface Viewer {
  /** The signed-in session, if any. */
  session: WebSession | undefined
  /** The CSRF token forms on this page carry. */
  formToken: string
  /** Set-Cookie lines the page must send with it (a new form cookie). */
  cookies: string[]
}

/** Loads the session from the cookie; before sign-in, makes sure the browser has a form cookie. */
export async function loadViewer(deps: DashboardDeps, request: PageRequest): Promise<Viewer> {
  const session = await getWebSession(deps.setup.db, request.cookies.get(cookieName('session', deps.secureCookies)))
  if (session) return { session, formToken: session.csrfToken, cookies: [] }
  const existing = request.cookies.get(cookieName('form', deps.secureCookies))
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return { session: undefined, formToken: existing, cookies: [] }
  const formToken = randomToken()
  return { session: undefined, formToken, cookies: [setCookie('form', formToken, { secure: deps.secureCookies, maxAgeSeconds: FORM_COOKIE_SECONDS })] }
}

function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined
  try {
    return new URL(url).origin
  } catch {
    return undefined
  }
}

/**
 * True unless the browser says the post comes from another site: by Sec-Fetch-Site, or by an
 * Origin that is neither the service's, the dashboard's, nor the host the request was sent to.
 * Under Referrer-Policy no-referrer browsers send "Origin: null" with form posts, so a null origin
 * passes only when Sec-Fetch-Site vouches for it.
 */
export function isSameOriginPost(deps: Pick<DashboardDeps, 'baseUrl' | 'dashboardOrigin' | 'secureCookies'>, request: Pick<PageRequest, 'fetchSite' | 'origin' | 'host'>): boolean {
  if (request.fetchSite && request.fetchSite !== 'same-origin' && request.fetchSite !== 'none') return false
  if (!request.origin) return true
  if (request.origin === 'null') return request.fetchSite === 'same-origin'
  const allowed = [originOf(deps.baseUrl), originOf(deps.dashboardOrigin), request.host ? originOf(`${deps.secureCookies ? 'https' : 'http'}://${request.host}`) : undefined]
  return allowed.includes(request.origin)
}

/** Throws PageError 403 unless the post is same-origin and carries this viewer's CSRF token. */
export function checkFormPost(deps: DashboardDeps, request: PageRequest, viewer: Viewer, form: URLSearchParams): void {
  if (!isSameOriginPost(deps, request)) {
    throw new PageError(403, 'Request refused', 'This form was sent from another site. Open the dashboard directly and submit the form there.')
  }
  // A token created for this very answer was never sent to the browser, so it cannot match.
  const known = viewer.cookies.length === 0
  if (!known || !sameToken(form.get('csrf') ?? '', viewer.formToken)) {
    throw new PageError(403, 'Form expired', 'This form is out of date (you may have signed in or out in another tab). Go back, reload the page and try again.')
  }
}

/**
 * The sign-in page that returns to path afterwards. A path whose query makes it longer than a
 * sign-in returns to keeps its path alone (a 20 KB query repeated in Location made a header
 * clients refuse, and the sign-in dropped it anyway); a path too long by itself returns to "/".
 */
export function signInPath(path: string): string {
  const bare = path.split('?', 1)[0]!
  const next = path.length <= NEXT_PATH_MAX ? path : bare.length <= NEXT_PATH_MAX ? bare : ''
  return next ? `/signin?next=${encodeURIComponent(next)}` : '/signin'
}
