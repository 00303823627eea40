/**
 * Sign-in, sign-up, sign-out and code-host (OAuth) sign-in. Handlers only read the form, call the
 * accounts domain and choose the page or redirect.
 */
import type uWS from 'uWebSockets.js'
import { AccountError } from './errors.js'
import { finishOAuth, OAUTH_STATE_TTL_MS, safeNextPath, startOAuth } from './oauth-state.js'
import { createLocalAccount, signInWithCodehost, signInWithPassword, type AccountDeps, type User } from './users.js'
import { createWebSession, endWebSession, WEB_SESSION_TTL_MS } from './web-sessions.js'
import { CodehostOAuthRejected, CodehostUnreachable } from '../../../shared/plugins/types.js'
import { clearCookie, cookieName, setCookie } from '../http/cookies.js'
import type { DashboardDeps } from '../http/deps.js'
import { oauthRedirectUri } from './oauth-settings.js'
import { PageError, redirect, sendPage } from '../http/respond.js'
import { getPage, postForm, type PageContext } from '../http/route.js'
import { claimDevelopmentProject } from '../projects/first-run.js'
import { signinPage, signupPage } from './views/auth.js'

/** The accounts domain's view of the dashboard's dependencies. */
export function accountDeps(deps: DashboardDeps): AccountDeps {
  return { db: deps.setup.db, redis: deps.setup.redis, keyPrefix: deps.redisKeyPrefix }
}

/** Starts a session for user, ends the one the browser had, and sends the browser on to next. */
async function signedIn(deps: DashboardDeps, ctx: PageContext, user: User, next: string, extraCookies: string[] = []): Promise<void> {
  await endWebSession(deps.setup.db, ctx.request.cookies.get(cookieName('session', deps.secureCookies)))
  const session = await createWebSession(deps.setup.db, user.id)
  const cookie = setCookie('session', session.token, { secure: deps.secureCookies, maxAgeSeconds: WEB_SESSION_TTL_MS / 1000 })
  deps.log.info('dashboard sign-in', { user_id: user.id })
  redirect(ctx.ex, next, { cookies: [cookie, ...extraCookies] })
}

/** Registers /signin, /signup, /signout and, when the code host offers OAuth, /auth/codehost/*. */
export function registerAuthRoutes(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  const oauth = deps.codehost?.oauth
  const accounts = accountDeps(deps)

  getPage(app, deps, '/signin', async ({ ex, request, viewer }) => {
    const next = safeNextPath(request.query.get('next'))
    if (viewer.session) return redirect(ex, next, { status: 302 })
    const notice = next.startsWith('/setup/') ? 'Sign in to review the setup request. You come back to it afterwards.' : undefined
    sendPage(ex, 200, signinPage(viewer, { next, email: '', notice }, oauth !== undefined), { cookies: viewer.cookies })
  })

  postForm(app, deps, '/signin', async (ctx) => {
    const { ex, request, viewer, form } = ctx
    const next = safeNextPath(form.get('next'))
    const email = form.get('email') ?? ''
    try {
      const user = await signInWithPassword(accounts, email, form.get('password') ?? '', request.address)
      await signedIn(deps, ctx, user, next)
    } catch (error) {
      if (!(error instanceof AccountError)) throw error
      sendPage(ex, error.status, signinPage(viewer, { next, email, error: error.message }, oauth !== undefined), { retryAfter: error.retryAfter })
    }
  })

  getPage(app, deps, '/signup', async ({ ex, request, viewer }) => {
    const next = safeNextPath(request.query.get('next'))
    if (viewer.session) return redirect(ex, next, { status: 302 })
    sendPage(ex, 200, signupPage(viewer, { next, email: '', displayName: '' }), { cookies: viewer.cookies })
  })

  postForm(app, deps, '/signup', async (ctx) => {
    const { ex, request, viewer, form } = ctx
    const next = safeNextPath(form.get('next'))
    const input = { email: form.get('email') ?? '', password: form.get('password') ?? '', displayName: form.get('display_name') ?? '' }
    try {
      const user = await createLocalAccount(accounts, input, request.address)
      deps.log.info('dashboard account created', { user_id: user.id })
      if (deps.developmentProjectId && (await claimDevelopmentProject(deps.setup.db, deps.developmentProjectId, user.id))) {
        deps.log.info('first account owns the development project', { user_id: user.id, project_id: deps.developmentProjectId })
      }
      await signedIn(deps, ctx, user, next)
    } catch (error) {
      if (!(error instanceof AccountError)) throw error
      sendPage(ex, error.status, signupPage(viewer, { next, email: input.email, displayName: input.displayName, error: error.message }), { retryAfter: error.retryAfter })
    }
  })

  postForm(app, deps, '/signout', async ({ ex, request }) => {
    await endWebSession(deps.setup.db, request.cookies.get(cookieName('session', deps.secureCookies)))
    redirect(ex, '/signin', { cookies: [clearCookie('session', deps.secureCookies)] })
  })

  if (!oauth) return
  const redirectUri = oauthRedirectUri(deps)
  const dashboardHost = deps.dashboardOrigin ? new URL(deps.dashboardOrigin).host : undefined

  getPage(app, deps, '/auth/codehost/start', async ({ ex, request }) => {
    const next = safeNextPath(request.query.get('next'))
    // The callback comes back to the dashboard's host: start there, so the state cookie is on that host too.
    if (dashboardHost && request.host && request.host !== dashboardHost) {
      return redirect(ex, `${deps.dashboardOrigin}/auth/codehost/start?next=${encodeURIComponent(next)}`, { status: 302 })
    }
    const { cookieValue, state } = startOAuth(next)
    const cookie = setCookie('oauth', cookieValue, { secure: deps.secureCookies, maxAgeSeconds: OAUTH_STATE_TTL_MS / 1000 })
    redirect(ex, oauth.authorizeUrl(state, redirectUri), { status: 302, cookies: [cookie] })
  })

  getPage(app, deps, '/auth/codehost/callback', async (ctx) => {
    const { request, viewer } = ctx
    const cleared = clearCookie('oauth', deps.secureCookies)
    const bound = finishOAuth(request.cookies.get(cookieName('oauth', deps.secureCookies)), request.query.get('state') ?? undefined)
    if (!bound) throw new PageError(400, 'Sign-in expired', 'This sign-in was started in another browser or took longer than 10 minutes. Start the sign-in again.')
    const code = request.query.get('code')
    if (!code) throw new PageError(400, 'Sign-in cancelled', 'The code host did not confirm the sign-in. Start the sign-in again, or sign in with email and password.')
    let user: User
    try {
      const identity = await oauth.exchange(code, redirectUri)
      user = await signInWithCodehost(deps.setup.db, identity, viewer.session?.user.id)
    } catch (error) {
      if (error instanceof AccountError) throw new PageError(error.status, 'Cannot sign in', error.message)
      if (error instanceof CodehostOAuthRejected) throw new PageError(400, 'Sign-in expired', 'The code host no longer accepts this sign-in. Start the sign-in again.')
      if (error instanceof CodehostUnreachable) throw new PageError(503, 'Code host unreachable', 'The code host could not be reached. Try again in a minute, or sign in with email and password.')
      throw error
    }
    // Linking an account keeps the session the person already had.
    if (viewer.session?.user.id === user.id) return redirect(ctx.ex, bound.next, { cookies: [cleared] })
    await signedIn(deps, ctx, user, bound.next, [cleared])
  })
}
