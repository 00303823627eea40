/**
 * Sentry breadcrumbs as our SDK's (type click, navigation, console or http; timestamp in ms), so
 * the dashboard shows them alike and the grouper finds a failed request in them as it does in ours
 * (grouping/request.ts: the last http crumb without a status). Others keep their category as type.
 */
import { isObject, str, type Json } from './values.js'

/** The schema's cap on breadcrumbs; the newest are kept. */
const MAX_BREADCRUMBS = 200
const MAX_MESSAGE = 1024


/** Our breadcrumbs for a Sentry event's breadcrumbs (a list, or { values }). */
export function sentryBreadcrumbs(value: unknown): Json[] {
  const list = Array.isArray(value) ? value : isObject(value) && Array.isArray(value.values) ? value.values : []
  const out: Json[] = []
  for (const crumb of list.slice(-MAX_BREADCRUMBS)) {
    if (isObject(crumb)) out.push(breadcrumb(crumb))
  }
  return out
}

function breadcrumb(crumb: Json): Json {
  const category = str(crumb.category, 64)
  const data = isObject(crumb.data) ? crumb.data : {}
  const timestamp = typeof crumb.timestamp === 'number' && Number.isFinite(crumb.timestamp) ? Math.round(crumb.timestamp * 1000) : undefined
  const message = str(crumb.message, MAX_MESSAGE)
  if (category === 'fetch' || category === 'xhr' || crumb.type === 'http') {
    const method = str(data.method, 10) || 'GET'
    const status = typeof data.status_code === 'number' ? data.status_code : undefined
    return { type: 'http', timestamp, message: `${method} ${str(data.url, MAX_MESSAGE)}`, data: status === undefined ? { method } : { method, status } }
  }
  if (category === 'navigation') return { type: 'navigation', timestamp, message: str(data.to, MAX_MESSAGE) || message }
  if (category === 'console') return { type: 'console', timestamp, message, data: { level: str(crumb.level, 16) || 'log' } }
  if (category === 'ui.click') return { type: 'click', timestamp, message }
  return { type: category || str(crumb.type, 64) || 'default', timestamp, message }
}
