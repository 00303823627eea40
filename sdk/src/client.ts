/**
 * Turns whatever was thrown into an event, applies sampling, beforeSend, dedupe and per-error
 * throttling, and hands the survivors to the transport.
 */
import type { BreadcrumbTrail } from './breadcrumbs.js'
import { debugIdsFor } from './debug-ids.js'
import type { Transport } from './transport.js'
import type { Options, SvcEvent, User } from './types.js'
import { stripUrl } from './url.js'
import { eventId } from './event-id.js'
import { link } from './recording-link.js'

declare const __SDK_VERSION__: string

/** An identical error again this soon is the same occurrence reported twice (e.g. by two handlers). */
const DEDUPE_MS = 5000
const MINUTE = 60_000
/** Well inside the service's limits (message 64 KiB, stack 256 KiB), so an event is never refused for size. */
const MAX_MESSAGE = 8192
const MAX_STACK = 65_536

export interface ClientSettings {
  environment: string | undefined
  release: string | undefined
  sampleRate: number
  beforeSend: Options['beforeSend']
  maxPerErrorPerMinute: number
}

export class Client {
  readonly #settings: ClientSettings
  readonly #transport: Transport
  readonly #trail: BreadcrumbTrail
  readonly #sessionId: string
  readonly #log: (message: string) => void
  #user: User | undefined
  #last: { signature: string; at: number } | undefined
  readonly #counts = new Map<string, { since: number; count: number }>()

  constructor(settings: ClientSettings, transport: Transport, trail: BreadcrumbTrail, sessionId: string, log: (message: string) => void) {
    this.#settings = settings
    this.#transport = transport
    this.#trail = trail
    this.#sessionId = sessionId
    this.#log = log
  }

  setUser(user: User | null): void {
    this.#user = user ? { id: user.id, email: user.email, username: user.username } : undefined
  }

  /** The user the events carry (the recorder's chunks carry it too). */
  get user(): User | undefined {
    return this.#user
  }

  /** Reports one error; returns why it was not sent, or 'sent'. */
  capture(thrown: unknown): 'sent' | 'sampled' | 'duplicate' | 'throttled' | 'dropped by beforeSend' {
    if (Math.random() >= this.#settings.sampleRate) return 'sampled'
    let event: SvcEvent | null = this.#build(thrown)
    const signature = `${event.error.type}\n${event.error.message}\n${event.error.stack}`
    const now = Date.now()
    if (this.#last && this.#last.signature === signature && now - this.#last.at < DEDUPE_MS) return 'duplicate'
    this.#last = { signature, at: now }
    const seen = this.#counts.get(signature)
    if (!seen || now - seen.since >= MINUTE) this.#counts.set(signature, { since: now, count: 1 })
    else if (++seen.count > this.#settings.maxPerErrorPerMinute) return 'throttled'
    if (this.#counts.size > 100) this.#counts.delete(this.#counts.keys().next().value!)
    if (this.#settings.beforeSend) {
      try {
        event = this.#settings.beforeSend(event)
      } catch (error) {
        // A failing filter may have been meant to scrub something: do not send what it did not see through.
        this.#log(`beforeSend threw (${String(error)}); the event was not sent`)
        return 'dropped by beforeSend'
      }
      if (!event) return 'dropped by beforeSend'
    }
    this.#transport.send(JSON.stringify(event))
    // Marks the error in the recording and sends it now (in 'errors' mode, this starts the upload).
    if (event.recording_id && event.recording_id === link.recorder?.recordingId()) link.recorder.errorCaptured(event.event_id, event.error.message)
    return 'sent'
  }

  #build(thrown: unknown): SvcEvent {
    const error = describeError(thrown)
    const event: SvcEvent = {
      timestamp: new Date().toISOString(),
      error,
      breadcrumbs: this.#trail.snapshot(),
      context: { url: stripUrl(location.href), user_agent: navigator.userAgent },
      sdk_version: __SDK_VERSION__,
      platform: 'javascript',
      session_id: this.#sessionId,
      event_id: eventId(),
    }
    if (this.#settings.environment) event.environment = this.#settings.environment
    if (this.#settings.release) event.release = this.#settings.release
    if (this.#user) event.user = this.#user
    const recordingId = link.recorder?.recordingId()
    if (recordingId) event.recording_id = recordingId
    // Lets the service find each file's uploaded map by the id stamped into it, not by URL and release.
    const debugIds = debugIdsFor(error.stack)
    if (debugIds) event.debug_ids = debugIds
    return event
  }
}

/**
 * Type, message and stack of anything a page can throw (errors, strings, objects, DOM exceptions).
 * A value that is not an error says what it was (thrown): it has no stack, and the service says why.
 */
export function describeError(thrown: unknown): SvcEvent['error'] {
  if (thrown instanceof Error || (typeof thrown === 'object' && thrown !== null && 'message' in thrown && 'name' in thrown)) {
    const error = thrown as Error
    return { type: String(error.name || 'Error').slice(0, 256), message: String(error.message ?? '').slice(0, MAX_MESSAGE), stack: typeof error.stack === 'string' ? error.stack.slice(0, MAX_STACK) : '' }
  }
  if (typeof thrown === 'string') return { type: 'Error', message: thrown.slice(0, MAX_MESSAGE), stack: '', thrown: 'string' }
  let message: string
  try {
    message = JSON.stringify(thrown) ?? String(thrown)
  } catch {
    message = String(thrown)
  }
  return { type: 'Error', message: `Non-Error thrown: ${message}`.slice(0, MAX_MESSAGE), stack: '', thrown: thrown === null ? 'null' : typeof thrown }
}
