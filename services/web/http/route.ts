/**
 * How a dashboard route runs: the request is copied out before any await, the viewer is loaded,
 * a form post is read and checked (origin, CSRF), and any failure becomes an error page.
 */
import type uWS from 'uWebSockets.js'
import { exchange, type Exchange } from '../../../shared/http/exchange.js'
import type { DashboardDeps } from './deps.js'
import { readForm, readRequest, type PageRequest } from './request.js'
import { PageError, sendPage } from './respond.js'
import { checkFormPost, loadViewer, type Viewer } from './viewer.js'
import { errorPage } from './views/layout.js'

export interface PageContext {
  ex: Exchange
  request: PageRequest
  viewer: Viewer
}

export interface FormContext extends PageContext {
  form: URLSearchParams
}

function paramCount(pattern: string): number {
  return pattern.split('/').filter((segment) => segment.startsWith(':')).length
}

async function run(deps: DashboardDeps, ex: Exchange, request: PageRequest, body: (viewer: Viewer) => Promise<void>): Promise<void> {
  let viewer: Viewer | undefined
  try {
    viewer = await loadViewer(deps, request)
    await body(viewer)
  } catch (error) {
    const page = error instanceof PageError ? error : new PageError(500, 'Something went wrong', 'The service could not show this page. Try again in a moment; if it keeps failing, check the service logs.')
    if (!(error instanceof PageError)) deps.log.error('dashboard route failed', { path: request.path, error })
    const fallback: Viewer = viewer ?? { session: undefined, formToken: '', cookies: [] }
    sendPage(ex, page.status, errorPage(fallback, page), { cookies: fallback.cookies })
  }
}

/** Hands a request's work to the app's in-flight tracking; nothing escapes as an unhandled rejection. */
function settle(deps: DashboardDeps, work: Promise<void>): void {
  const settled = work.catch((error: unknown) => deps.log.error('dashboard answer failed', { error }))
  if (deps.track) deps.track(settled)
  else void settled
}

/** Registers a GET page. */
export function getPage(app: uWS.TemplatedApp, deps: DashboardDeps, pattern: string, handler: (ctx: PageContext) => Promise<void>): void {
  const count = paramCount(pattern)
  app.get(pattern, (res, req) => {
    const ex = exchange(res)
    const request = readRequest(req, res, count, deps.proxyHops)
    settle(deps, run(deps, ex, request, (viewer) => handler({ ex, request, viewer })))
  })
}

/** Registers a form POST; the handler runs only for a same-origin post with the right CSRF token. */
export function postForm(app: uWS.TemplatedApp, deps: DashboardDeps, pattern: string, handler: (ctx: FormContext) => Promise<void>): void {
  const count = paramCount(pattern)
  app.post(pattern, (res, req) => {
    const ex = exchange(res)
    const request = readRequest(req, res, count, deps.proxyHops)
    const reading = readForm(ex, request)
    reading.catch(() => {}) // awaited below; a failure before then must not be unhandled
    settle(
      deps,
      run(deps, ex, request, async (viewer) => {
        const form = await reading
        checkFormPost(deps, request, viewer, form)
        await handler({ ex, request, viewer, form })
      }),
    )
  })
}
