/**
 * The tab's recording: its id, the next chunk number, when the user was last active, whether it
 * was sampled in, and whether an error turned an 'errors'-mode buffer into a recording. Kept in
 * sessionStorage, so the pages of a multi-page app continue one recording; renewed after 30
 * minutes without activity. Blocked storage leaves a recording per page load.
 */
import { eventId as uuid } from '../event-id.js'

const KEY = 'svc.recording'
/** A recording ends after this long without the user doing anything (docs/recordings.md). */
const IDLE_MS = 30 * 60_000
/** Activity alone is saved at most this often: a mouse move must not write storage each time. */
const SAVE_ACTIVITY_MS = 5000
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

interface Saved {
  id: string
  seq: number
  last: number
  sampled: boolean
  triggered: boolean
}

export class TabRecording {
  readonly #sampleRate: number
  #state: Saved
  #savedAt = 0

  constructor(sampleRate: number, now = Date.now()) {
    this.#sampleRate = sampleRate
    const saved = read()
    this.#state = saved && now - saved.last <= IDLE_MS ? { ...saved, last: now } : this.#fresh(now)
    this.save()
  }

  get id(): string {
    return this.#state.id
  }

  /** Whether this recording was sampled in (decided once, when its id was made). */
  get sampled(): boolean {
    return this.#state.sampled
  }

  /** Whether an error already made this recording send (in 'errors' mode). */
  get triggered(): boolean {
    return this.#state.triggered
  }

  /** Whether the user has done nothing for longer than a recording lasts. */
  idleAt(now: number): boolean {
    return now - this.#state.last > IDLE_MS
  }

  /** Notes user activity. */
  touch(now: number): void {
    this.#state.last = now
    if (now - this.#savedAt >= SAVE_ACTIVITY_MS) this.save()
  }

  /** Begins a new recording (new id, chunks from 0, sampled anew): the user is back after idling. */
  renew(now: number): void {
    this.#state = this.#fresh(now)
    this.save()
  }

  /** The next chunk number, saved before it is used, so no two chunks of this tab share one. */
  nextSeq(): number {
    const seq = this.#state.seq++
    this.save()
    return seq
  }

  /** An error was captured: from now on this recording sends, on this page and the next. */
  trigger(): void {
    this.#state.triggered = true
    this.save()
  }

  save(): void {
    this.#savedAt = Date.now()
    try {
      sessionStorage.setItem(KEY, JSON.stringify(this.#state))
    } catch {
      // A stale copy would hand out chunk numbers again on the next page: drop it, so that page
      // begins a recording of its own.
      try {
        sessionStorage.removeItem(KEY)
      } catch {
        // storage blocked outright: nothing is kept, each page is its own recording
      }
    }
  }

  #fresh(now: number): Saved {
    return { id: uuid(), seq: 0, last: now, sampled: Math.random() < this.#sampleRate, triggered: false }
  }
}

/** The saved state, or undefined when there is none or it is not one the SDK wrote. */
function read(): Saved | undefined {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Partial<Saved> | null
    if (!value || typeof value.id !== 'string' || !UUID.test(value.id)) return undefined
    if (!Number.isInteger(value.seq) || value.seq! < 0 || typeof value.last !== 'number') return undefined
    return { id: value.id, seq: value.seq!, last: value.last, sampled: value.sampled === true, triggered: value.triggered === true }
  } catch {
    return undefined
  }
}
