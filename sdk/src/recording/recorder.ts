/**
 * Records the page with rrweb and cuts what it emits into numbered chunks for the uploader. In
 * 'errors' mode it keeps only the last two checkout segments (rrweb takes a full snapshot every
 * 30 s, so the buffer always starts from one and spans 30 to 60 s) until an error is captured;
 * then it sends the buffer and records the rest of the session as in 'all' mode.
 */
import { record } from '@rrweb/record'
import type { RecorderHandle, RecordingHost } from '../recording-link.js'
import { stripUrl } from '../url.js'
import { scrubEvent } from './scrub.js'
import type { TabRecording } from './tab-state.js'
import type { Uploader } from './uploader.js'

declare const __SDK_VERSION__: string

export interface RecorderSettings {
  mode: 'all' | 'errors'
  maskAllInputs: boolean
  blockClass: string
  ignoreClass: string
  maskTextClass: string
  flushIntervalMs: number
}

/** 'errors' mode: a full snapshot this often; the last two segments are kept, so 30 to 60 s. */
const CHECKOUT_MS = 30_000
/** A chunk's events in JSON characters: a few MB of UTF-8 at worst, under the service's 5 MiB. */
const MAX_CHUNK_CHARS = 1_000_000
/** One event larger than this could not go in any chunk the service takes. */
const MAX_EVENT_CHARS = 1_600_000
/** 'errors' mode: a segment past this begins a new one early, so memory stays bounded. */
const MAX_SEGMENT_CHARS = 4_000_000
const MAX_ERROR_MESSAGE = 200
const META = 4
const INCREMENTAL = 3
/** rrweb incremental sources a person causes: mouse move, click, scroll, input, touch. */
const USER_SOURCES = [1, 2, 3, 5, 6]

interface RrwebEvent {
  type: number
  timestamp: number
  data?: { source?: number }
}

interface Segment {
  events: string[]
  chars: number
}

export class Recorder implements RecorderHandle {
  readonly #host: RecordingHost
  readonly #settings: RecorderSettings
  readonly #tab: TabRecording
  readonly #uploader: Uploader
  /** 'errors' mode before an error: the kept segments; otherwise one, the events since the last chunk. */
  #segments: Segment[] = []
  #stopRrweb: (() => void) | undefined
  #interval: ReturnType<typeof setInterval> | undefined
  readonly #onVisibility = (): void => {
    if (document.visibilityState === 'hidden') this.#hide(false)
  }
  readonly #onPageHide = (): void => this.#hide(true)

  constructor(host: RecordingHost, settings: RecorderSettings, tab: TabRecording, uploader: Uploader) {
    this.#host = host
    this.#settings = settings
    this.#tab = tab
    this.#uploader = uploader
  }

  start(): void {
    this.#startRrweb()
    this.#interval = setInterval(() => this.flush(), this.#settings.flushIntervalMs)
    document.addEventListener('visibilitychange', this.#onVisibility)
    addEventListener('pagehide', this.#onPageHide)
  }

  /** Stops recording; what was recorded is still sent. */
  stop(): void {
    this.flush()
    this.#stopRrweb?.()
    this.#stopRrweb = undefined
    clearInterval(this.#interval)
    document.removeEventListener('visibilitychange', this.#onVisibility)
    removeEventListener('pagehide', this.#onPageHide)
  }

  recordingId(): string | undefined {
    return this.#stopRrweb && !this.#tab.idleAt(Date.now()) ? this.#tab.id : undefined
  }

  errorCaptured(eventId: string, message: string): void {
    if (!this.recordingId()) return
    try {
      record.addCustomEvent('svc.error', { event_id: eventId, message: message.slice(0, MAX_ERROR_MESSAGE) })
    } catch (error) {
      this.#host.log(`recording: could not mark the error (${String(error)})`)
    }
    if (this.#buffering) {
      this.#tab.trigger()
      this.flush()
      // Recorded from here as in 'all' mode: without checkouts, whose full snapshots would cost a
      // chunk's worth every 30 s. Starting again begins with a full snapshot of the page as it is.
      this.#restartRrweb()
      return
    }
    this.flush()
  }

  /** Cuts what is buffered into chunks and queues them; in 'errors' mode before an error, nothing. */
  flush(): void {
    if (this.#buffering) return
    const events = this.#segments.flatMap((segment) => segment.events)
    this.#segments = []
    let from = 0
    let chars = 0
    for (let i = 0; i < events.length; i++) {
      if (i > from && chars + events[i]!.length > MAX_CHUNK_CHARS) {
        this.#queue(events.slice(from, i))
        from = i
        chars = 0
      }
      chars += events[i]!.length
    }
    if (from < events.length) this.#queue(events.slice(from))
  }

  get #buffering(): boolean {
    return this.#settings.mode === 'errors' && !this.#tab.triggered
  }

  #startRrweb(): void {
    const { maskAllInputs, blockClass, ignoreClass, maskTextClass } = this.#settings
    this.#stopRrweb = record<RrwebEvent>({
      emit: (event, isCheckout) => this.#take(event, isCheckout === true),
      checkoutEveryNms: this.#buffering ? CHECKOUT_MS : undefined,
      maskAllInputs,
      // Passwords are masked whatever maskAllInputs says.
      maskInputOptions: { password: true },
      blockClass,
      ignoreClass,
      maskTextClass,
      errorHandler: (error) => {
        // rrweb's own failures are never the page's errors, nor thrown into it.
        this.#host.log(`recording: ${String(error)}`)
        return true
      },
    })
  }

  #restartRrweb(): void {
    this.#stopRrweb?.()
    this.#segments = []
    this.#startRrweb()
  }

  #take(event: RrwebEvent, isCheckout: boolean): void {
    try {
      const byUser = event.type === INCREMENTAL && USER_SOURCES.includes(event.data?.source ?? -1)
      const idle = this.#tab.idleAt(event.timestamp)
      if (byUser && idle) {
        // The user is back after the recording ended: what it kept still goes under its own id,
        // and a new one begins with a snapshot of the page (rrweb is not restarted from its emit).
        this.flush()
        this.#segments = []
        this.#tab.renew(event.timestamp)
        setTimeout(() => this.#renewed())
        return
      }
      // Idle for longer than a recording lasts: nothing is recorded until the user is back.
      if (idle) return
      if (byUser) this.#tab.touch(event.timestamp)
      // Page addresses leave without credentials or secret-looking parameters, as in the events.
      const meta = event as RrwebEvent & { data: { href?: unknown } }
      if (event.type === META && typeof meta.data?.href === 'string') meta.data.href = stripUrl(meta.data.href)
      // Inline handlers and javascript: URLs are script: they stay in the page, as scripts' text does.
      scrubEvent(event)
      const text = JSON.stringify(event)
      if (text.length > MAX_EVENT_CHARS) return this.#host.log(`recording: dropped an event of ${text.length} characters`)
      if (this.#buffering && event.type === META && (isCheckout || this.#segments.length === 0)) {
        this.#segments.push({ events: [], chars: 0 })
        if (this.#segments.length > 2) this.#segments.shift()
      }
      // 'errors' mode keeps nothing from before the first snapshot: no replay could start there.
      if (this.#buffering && this.#segments.length === 0) return
      if (this.#segments.length === 0) this.#segments.push({ events: [], chars: 0 })
      const segment = this.#segments[this.#segments.length - 1]!
      segment.events.push(text)
      segment.chars += text.length
      if (segment.chars < (this.#buffering ? MAX_SEGMENT_CHARS : MAX_CHUNK_CHARS)) return
      if (this.#buffering) record.takeFullSnapshot(true)
      else this.flush()
    } catch (error) {
      this.#host.log(`recording: ${String(error)}`)
    }
  }

  #renewed(): void {
    if (!this.#stopRrweb) return
    if (this.#tab.sampled) return this.#restartRrweb()
    this.#stopRrweb()
    this.#stopRrweb = undefined
    this.#host.log('recording: the new recording was not sampled; nothing is recorded')
  }

  #queue(events: string[]): void {
    const host = this.#host
    const head = {
      recording_id: this.#tab.id,
      seq: this.#tab.nextSeq(),
      session_id: host.sessionId,
      user: host.user(),
      release: host.release,
      environment: host.environment,
      sdk_version: __SDK_VERSION__,
    }
    const json = `${JSON.stringify(head).slice(0, -1)},"events":[${events.join(',')}]}`
    this.#uploader.add({ recordingId: head.recording_id, seq: head.seq, json })
  }

  #hide(unloading: boolean): void {
    try {
      this.flush()
      this.#tab.save()
      this.#uploader.onHide(unloading)
    } catch (error) {
      this.#host.log(`recording: ${String(error)}`)
    }
  }
}
