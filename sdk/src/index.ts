/**
 * @svc/sdk: captures errors in the page (the global error path and unhandled rejections, plus
 * what you pass to captureException) and sends them to your svc service. It never throws into
 * the page: a configuration error is swallowed by init unless `debug` is on.
 */
import { BreadcrumbTrail, instrument } from './breadcrumbs.js'
import { Client } from './client.js'
import { link } from './recording-link.js'
import { pingOnce, Transport } from './transport.js'
import type { Options, User } from './types.js'

export type { Breadcrumb, Options, RecordingOptions, SvcEvent, User } from './types.js'

const DEFAULT_ENDPOINT = 'http://localhost:8082'
const INGEST_KEY = /^svc_pk_[a-z0-9]{12}_[A-Za-z0-9]{32}$/
const SESSION_KEY = 'svc.session'

let client: Client | undefined

/** Starts capturing. Call once, as early as possible; later calls are ignored. */
export function init(options: Options): void {
  const debug = Boolean(options?.debug)
  const log = (message: string): void => {
    if (debug) console.warn(`[svc] ${message}`)
  }
  try {
    if (client) return log('init was called again; the first configuration stays')
    if (typeof window === 'undefined' || typeof document === 'undefined') return log('not in a browser page; nothing is captured')
    if (typeof options?.apiKey !== 'string' || !INGEST_KEY.test(options.apiKey)) {
      return log('apiKey must be the ingest key (svc_pk_…) from your project settings; nothing is captured')
    }
    const sampleRate = options.sampleRate ?? 1
    if (typeof sampleRate !== 'number' || !(sampleRate >= 0 && sampleRate <= 1)) return log('sampleRate must be a number from 0 to 1; nothing is captured')
    const endpoint = new URL((options.endpoint ?? DEFAULT_ENDPOINT).replace(/\/+$/, ''), location.href).href.replace(/\/+$/, '')
    const eventsUrl = `${endpoint}/api/v1/events`
    const originalFetch = window.fetch
    const transport = new Transport(eventsUrl, options.apiKey, originalFetch, log)
    const trail = new BreadcrumbTrail()
    instrument(trail, (url) => {
      try {
        return new URL(url, location.href).href.startsWith(endpoint)
      } catch {
        return false
      }
    })
    const session = sessionId()
    const started = new Client(
      { environment: options.environment, release: options.release, sampleRate, beforeSend: options.beforeSend, maxPerErrorPerMinute: options.maxPerErrorPerMinute ?? 10 },
      transport,
      trail,
      session,
      log,
    )
    client = started
    addEventListener('error', (event) => report(event.error ?? event.message, log))
    addEventListener('unhandledrejection', (event) => report(event.reason, log))
    pingOnce(endpoint, options.apiKey, originalFetch)
    link.host = { endpoint, apiKey: options.apiKey, fetch: originalFetch, log, sessionId: session, release: options.release, environment: options.environment, user: () => started.user }
    // The recorder is a chunk of its own, fetched only by the pages that record.
    const recording = options.recording ?? link.pending
    if (recording) import('./recording.js').then((recorder) => recorder.startRecording(recording)).catch((error: unknown) => log(`the recorder did not load: ${String(error)}`))
  } catch (error) {
    client = undefined
    log(`init failed: ${String(error)}`)
  }
}

/** Reports an error you caught yourself. */
export function captureException(error: unknown): void {
  report(error, () => {})
}

/** Attaches a user to the events that follow (id, email or username); null detaches. */
export function setUser(user: User | null): void {
  try {
    client?.setUser(user)
  } catch {
    // never into the page
  }
}

/** Vue plugin: app.use(svcVuePlugin, options) calls init and reports errors from components. */
export const svcVuePlugin = {
  install(app: { config: { errorHandler?: (error: unknown, instance: unknown, info: string) => void } }, options?: Options): void {
    if (options) init(options)
    const previous = app.config.errorHandler
    app.config.errorHandler = (error, instance, info) => {
      captureException(error)
      if (previous) previous(error, instance, info)
      else console.error(error)
    }
  },
}

function report(error: unknown, log: (message: string) => void): void {
  try {
    const outcome = client?.capture(error)
    if (outcome && outcome !== 'sent') log(`error not sent: ${outcome}`)
  } catch (failure) {
    log(`capture failed: ${String(failure)}`)
  }
}

/** One id per browser tab session: kept across reloads, new in a new tab. */
function sessionId(): string {
  try {
    const existing = sessionStorage.getItem(SESSION_KEY)
    if (existing) return existing
  } catch {
    // storage may be blocked; fall through to a page-lifetime id
  }
  const id = typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`
  try {
    sessionStorage.setItem(SESSION_KEY, id)
  } catch {
    // page-lifetime id then
  }
  return id
}
