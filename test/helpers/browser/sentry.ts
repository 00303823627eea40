/**
 * Requests as @sentry/browser 11 sends them, written by hand from Sentry's envelope docs: the
 * fetch transport POSTs the envelope to /api/<project>/envelope/?sentry_version=7&sentry_key=…
 * with Content-Type text/plain;charset=UTF-8; the envelope header has event_id, sent_at and sdk
 * (dsn only behind a tunnel); an event item's header is {"type":"event"} with no length, and the
 * payload runs to the newline. Frames are listed oldest first, as Sentry does.
 */
import type { Queryable } from '../../../shared/db/index.js'
import { readDsnNumber, sentryDsn } from '../../../services/web/projects/dsn.js'

export const SENTRY_CLIENT = 'sentry.javascript.browser/11.0.0'
const SDK = { name: 'sentry.javascript.browser', version: '11.0.0' }

/** A 32-hex Sentry event id. */
export function sentryId(): string {
  return crypto.randomUUID().replaceAll('-', '')
}

/** The event @sentry/browser sends for sampleEvent()'s bug (test/helpers/stack.ts): the same type, message, frames and page. */
export function browserEvent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const file = 'http://localhost:5173/assets/index-4f3a9c2b.js'
  return {
    exception: {
      values: [
        {
          type: 'TypeError',
          value: "Cannot read properties of undefined (reading 'id')",
          stacktrace: {
            frames: [
              { filename: file, function: 'onClick', in_app: true, lineno: 40, colno: 7 },
              { filename: file, function: 'renderCart', in_app: true, lineno: 12, colno: 34 },
            ],
          },
          mechanism: { type: 'auto.browser.global_handlers.onerror', handled: false },
        },
      ],
    },
    level: 'error',
    event_id: sentryId(),
    platform: 'javascript',
    request: { url: 'http://localhost:5173/cart', headers: { 'User-Agent': 'Mozilla/5.0 test' } },
    timestamp: Date.now() / 1000,
    environment: 'production',
    release: 'shop@1.2.3',
    sdk: { ...SDK, integrations: ['InboundFilters', 'FunctionToString', 'BrowserApiErrors', 'Breadcrumbs', 'GlobalHandlers', 'LinkedErrors', 'Dedupe', 'HttpContext'], packages: [{ name: 'npm:@sentry/browser', version: '11.0.0' }] },
    breadcrumbs: [
      { timestamp: Date.now() / 1000 - 2, category: 'console', level: 'log', message: 'cart opened', data: { arguments: ['cart opened'], logger: 'console' } },
      { timestamp: Date.now() / 1000 - 1, category: 'fetch', type: 'http', data: { method: 'GET', url: '/api/cart', status_code: 200 } },
      { timestamp: Date.now() / 1000, category: 'ui.click', message: 'button#checkout' },
    ],
    contexts: { trace: { trace_id: crypto.randomUUID().replaceAll('-', ''), span_id: '1a2b3c4d5e6f7a8b' } },
    tags: { team: 'checkout' },
    user: { id: 'u1', email: 'ada@example.com' },
    debug_meta: { images: [{ type: 'sourcemap', code_file: file, debug_id: 'c0ffee00-1234-4abc-8def-0123456789ab' }] },
    ...overrides,
  }
}

/** An envelope of items, each [header, payload]; a string payload is written as it is. */
export function envelope(header: Record<string, unknown>, items: Array<[Record<string, unknown>, unknown]>): string {
  const lines = [JSON.stringify(header)]
  for (const [itemHeader, payload] of items) lines.push(JSON.stringify(itemHeader), typeof payload === 'string' ? payload : JSON.stringify(payload))
  return `${lines.join('\n')}\n`
}

/** The envelope @sentry/browser sends for one event. */
export function eventEnvelope(event: Record<string, unknown>, extraHeader: Record<string, unknown> = {}): string {
  return envelope({ event_id: event.event_id, sent_at: new Date().toISOString(), sdk: SDK, ...extraHeader }, [[{ type: 'event' }, event]])
}

/** POSTs to /api/<project>/<kind>/ with a query string and headers; the answer with its parsed body. */
export async function postSentry(
  baseUrl: string,
  path: string,
  body: string | Uint8Array,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'Content-Type': 'text/plain;charset=UTF-8', ...headers }, body })
  const text = await response.text()
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: response.headers }
}

/** The envelope URL the browser SDK builds from a DSN's key and project. */
export function envelopePath(project: string, key: string): string {
  return `/api/${project}/envelope/?sentry_version=7&sentry_key=${encodeURIComponent(key)}&sentry_client=${encodeURIComponent(SENTRY_CLIENT)}`
}

/** The DSN the dashboard shows for the stack's ingest key (services/web/projects/dsn.ts). */
export async function stackDsn(stack: { db: Queryable; baseUrl: string; projectId: string; ingestKey: string }): Promise<string> {
  return sentryDsn(stack.baseUrl, stack.ingestKey, (await readDsnNumber(stack.db, stack.projectId))!)
}
