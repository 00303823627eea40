/**
 * A fetch() that got no answer is the network's doing, and engines disagree on its stack: V8
 * gives one, SpiderMonkey and JavaScriptCore give none. Such an error is keyed by the request that
 * failed, read from the SDK's breadcrumbs (the last http one without a status), which every engine
 * reports alike: one endpoint that fails is one issue in every browser.
 */
import { canonicalMessage } from './engine-messages.js'

/** True for the engines' wordings of a fetch() that got no answer. */
export function isFetchFailure(message: unknown): boolean {
  return typeof message === 'string' && canonicalMessage(message) === 'fetch failed'
}

/** "GET /api/orders/<n>" for the last request in breadcrumbs that got no answer, or undefined. */
export function lastFailedRequest(breadcrumbs: unknown): string | undefined {
  if (!Array.isArray(breadcrumbs)) return undefined
  for (let i = breadcrumbs.length - 1; i >= 0; i--) {
    const crumb = breadcrumbs[i] as { type?: unknown; message?: unknown; data?: { status?: unknown } } | null
    if (crumb?.type !== 'http' || typeof crumb.message !== 'string') continue
    if (crumb.data?.status) return undefined // the latest request was answered: not this one
    const [method = '', url = ''] = crumb.message.split(' ', 2)
    return `${method.toUpperCase().slice(0, 10)} ${requestPath(url)}`
  }
  return undefined
}

function requestPath(url: string): string {
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').replace(/[?#].*$/s, '') || '/'
  return path
    .slice(0, 300)
    .split('/')
    .map((segment) => {
      if (/^\d+$/.test(segment)) return '<n>'
      if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(segment)) return '<uuid>'
      return /\d/.test(segment) && /[a-z]/i.test(segment) && segment.length >= 6 ? '<id>' : segment
    })
    .join('/')
}
