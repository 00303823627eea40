/**
 * A Sentry event (an envelope's event item, or a /store/ body) as our event
 * (schemas/error-event.json), so the grouper learns no second format. What our schema names is
 * mapped onto it; tags, contexts, level, extra and the mechanism ride along as extra fields (the
 * schema keeps unknown fields). The last exception value is the one thrown (Sentry lists a chain
 * cause first); the causes before it are kept as `linked_errors` text, not grouped on.
 */
import type { ErrorEvent } from '../../../shared/domain/event.js'
import { IngestError } from '../errors.js'
import { sentryBreadcrumbs } from './breadcrumbs.js'
import { stackText } from './stack-text.js'
import { isObject, str, type Json } from './values.js'

const EVENT_ID = /^[0-9a-f]{32}$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const TRACE_ID = /^[0-9a-f]{32}$/i
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})$/
const ENVIRONMENT = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/
const MAX_DEBUG_IDS = 50
const MAX_LINKED = 10
/** Levels of tags, contexts and extra kept: Sentry's own contexts are two deep, extra data a few more. */
const MAX_DEPTH = 8


/** The Sentry event's id, when it has one we can keep (32 hex digits, or a UUID). */
export function sentryEventId(event: Json): string | undefined {
  return typeof event.event_id === 'string' && EVENT_ID.test(event.event_id) ? event.event_id.toLowerCase() : undefined
}

/** Our event for a Sentry event object; throws IngestError invalid_event for a value that is not one. */
export function translateEvent(value: unknown, receivedAt: number): ErrorEvent {
  if (!isObject(value)) throw new IngestError('invalid_event', { field: '(body)', message: 'The Sentry event is not a JSON object. Send the event as the SDK wrote it.' })
  const event = value
  const request = isObject(event.request) ? event.request : {}
  const headers = isObject(request.headers) ? request.headers : {}
  const sdk = isObject(event.sdk) ? event.sdk : {}
  const exceptions = exceptionValues(event.exception)
  const thrown = exceptions.at(-1)
  const out: ErrorEvent = {
    timestamp: timestampOf(event.timestamp, receivedAt),
    error: thrown ? errorOf(thrown) : messageError(event),
    breadcrumbs: sentryBreadcrumbs(event.breadcrumbs),
    context: { url: str(request.url, 8192), user_agent: str(headers['User-Agent'] ?? headers['user-agent'], 1024) },
    sdk_version: str(sdk.name && sdk.version ? `${str(sdk.name, 40)}@${str(sdk.version, 23)}` : sdk.version, 64) || 'sentry',
    platform: str(event.platform, 64) || 'javascript',
  }
  const id = sentryEventId(event)
  if (id) out.event_id = id
  const environment = str(event.environment, 64)
  if (ENVIRONMENT.test(environment)) out.environment = environment
  const release = str(event.release, 200)
  if (release) out.release = release
  const user = userOf(event.user)
  if (user) out.user = user
  const session = sessionOf(event.contexts)
  if (session) out.session_id = session
  const debugIds = debugIdsOf(event.debug_meta)
  if (debugIds) out.debug_ids = debugIds
  if (thrown && isObject(thrown.mechanism)) {
    if (typeof thrown.mechanism.handled === 'boolean') out.handled = thrown.mechanism.handled
    if (typeof thrown.mechanism.type === 'string') out.mechanism = str(thrown.mechanism.type, 64)
  }
  if (exceptions.length > 1) out.linked_errors = exceptions.slice(-1 - MAX_LINKED, -1).map((e) => `${str(e.type, 256) || 'Error'}: ${str(e.value, 1024)}`)
  if (typeof event.level === 'string') out.level = str(event.level, 16)
  if (isObject(event.tags) || Array.isArray(event.tags)) out.tags = bounded(event.tags, MAX_DEPTH)
  if (isObject(event.contexts)) out.contexts = bounded(event.contexts, MAX_DEPTH)
  if (isObject(event.extra)) out.extra = bounded(event.extra, MAX_DEPTH)
  return out
}

/**
 * The page view an event came from, as our SDK's session id: the SDKs put their propagation
 * context's trace id on every event (contexts.trace.trace_id), one a page load until a navigation
 * starts a new trace. Admission counts sessions as well as users (docs/sentry-sdk.md), and an app
 * that sets no user would otherwise count none.
 */
function sessionOf(contexts: unknown): string | undefined {
  const trace = isObject(contexts) && isObject(contexts.trace) ? contexts.trace : undefined
  return typeof trace?.trace_id === 'string' && TRACE_ID.test(trace.trace_id) ? `sentry-trace-${trace.trace_id.toLowerCase()}` : undefined
}

/**
 * A copy of a sender's value at most depth levels deep: deeper values become a note. JSON.parse
 * takes any depth, but JSON.stringify and every later reader recurse, and a 1 MiB body of nested
 * brackets would overflow their stacks.
 */
function bounded(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value
  if (depth === 0) return '[deeper than kept]'
  if (Array.isArray(value)) return value.map((item) => bounded(item, depth - 1))
  const copy: Json = {}
  for (const [name, item] of Object.entries(value)) copy[name] = bounded(item, depth - 1)
  return copy
}

/** exception.values (or the bare list older SDKs sent), objects only. */
function exceptionValues(exception: unknown): Json[] {
  const values = isObject(exception) ? exception.values : exception
  return Array.isArray(values) ? values.filter(isObject) : []
}

function errorOf(exception: Json): ErrorEvent['error'] {
  const type = str(exception.type, 256) || 'Error'
  const message = str(exception.value, 65_536)
  const stacktrace = isObject(exception.stacktrace) ? exception.stacktrace : {}
  return { type, message, stack: stackText(type, message, stacktrace.frames) }
}

/** captureMessage: no exception, a message (a string, or { formatted, message }). */
function messageError(event: Json): ErrorEvent['error'] {
  const message = isObject(event.message) ? event.message.formatted ?? event.message.message : event.message
  return { type: 'Message', message: str(message, 65_536) || str(event.logentry && isObject(event.logentry) ? event.logentry.message : '', 65_536), stack: '', thrown: 'string' }
}

/** Seconds since the epoch (what the SDKs send) or RFC 3339 text, as ISO 8601; the arrival time when neither. */
function timestampOf(value: unknown, receivedAt: number): string {
  if (typeof value === 'string' && ISO_TIME.test(value) && !Number.isNaN(Date.parse(value))) return value
  const ms = typeof value === 'number' ? value * 1000 : typeof value === 'string' ? Date.parse(value) : NaN
  // Outside years 1970–9999 toISOString would throw or leave our pattern.
  return Number.isFinite(ms) && ms >= 0 && ms < 253402300800000 ? new Date(ms).toISOString() : new Date(receivedAt).toISOString()
}

function userOf(value: unknown): ErrorEvent['user'] {
  if (!isObject(value)) return undefined
  const user: NonNullable<ErrorEvent['user']> = {}
  for (const field of ['id', 'email', 'username'] as const) {
    const v = value[field]
    if (typeof v === 'string' || typeof v === 'number') user[field] = String(v).slice(0, 256)
  }
  return Object.keys(user).length > 0 ? user : undefined
}

/** debug_meta.images of type sourcemap: file URL → debug id, as our SDK sends debug_ids. */
function debugIdsOf(debugMeta: unknown): Record<string, string> | undefined {
  const images = isObject(debugMeta) && Array.isArray(debugMeta.images) ? debugMeta.images : []
  const ids: Record<string, string> = {}
  let n = 0
  for (const image of images) {
    if (n >= MAX_DEBUG_IDS) break
    if (!isObject(image) || image.type !== 'sourcemap') continue
    const file = image.code_file
    const id = image.debug_id
    if (typeof file !== 'string' || file === '' || file.length > 2048 || typeof id !== 'string' || !UUID.test(id) || Object.hasOwn(ids, file)) continue
    ids[file] = id.toLowerCase()
    n++
  }
  return n > 0 ? ids : undefined
}
