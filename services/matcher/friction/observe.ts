/**
 * One pass over a recording's rrweb events (fed a chunk at a time, in seq order) that keeps only
 * what the detectors need: each click with the page and the element it landed on (told when it
 * happened, while the node is on the page), the moments the page answered (changed, loaded,
 * scrolled, took input), and the errors the SDK marked. The events themselves are not kept.
 */
import { array, isRecord, PageModel, pageOf, type ClickTarget } from './page-model.js'
import { cleanText } from '../../../shared/domain/untrusted-text.js'
import { FULL_SNAPSHOT, INCREMENTAL, META, CUSTOM, SOURCE_MUTATION, SOURCE_MOUSE, SOURCE_SCROLL, SOURCE_INPUT, SOURCE_MEDIA, MOUSE_CLICK } from '../../../shared/domain/rrweb.js'

/** The SDK's mark of an error it captured while recording (docs/recordings.md). */
const ERROR_TAG = 'svc.error'
/** The last time a JavaScript Date holds (ms). */
const LAST_DATE = 8.64e15
/** Characters of an error message quoted in a narrative. */
export const MESSAGE_MAX = 120

/** A moment in the recording: its time (ms) and its place in the event stream, for ties. */
export interface Moment {
  at: number
  order: number
}

export interface Click extends Moment {
  page: string
  target: ClickTarget
  /** Which full snapshot the node id belongs to: ids are the snapshot's own. */
  snapshot: number
}

export interface ErrorMark extends Moment {
  message: string
}

/** What one recording showed, each list oldest first. */
export interface Observations {
  clicks: Click[]
  /** The page changed (a mutation), loaded (meta, full snapshot), scrolled, took input or played media. */
  answers: Moment[]
  errors: ErrorMark[]
  /** Page loads (meta events): a link whose next page is slow to load still answered its click. */
  navigations?: Moment[]
  /** The last event's time: what happened after it was not recorded. */
  end: number | undefined
}

/** Gathers observations from a recording's events, fed in order. */
export class RecordingObserver {
  private readonly page = new PageModel()
  private readonly seen: Observations & { navigations: Moment[] } = { clicks: [], answers: [], errors: [], navigations: [], end: undefined }
  private address: string | undefined
  private snapshot = 0
  private order = 0

  /** Takes the next events (a chunk's), whatever their shape: an event not as rrweb writes it is passed over. */
  add(events: readonly unknown[]): void {
    for (const event of events) {
      const order = this.order++
      if (!isRecord(event) || typeof event.type !== 'number' || !isTime(event.timestamp) || !isRecord(event.data)) continue
      const { type, timestamp: at, data } = event
      this.seen.end = Math.max(this.seen.end ?? at, at)
      if (type === META) {
        this.address = pageOf(data.href)
        this.seen.answers.push({ at, order })
        this.seen.navigations.push({ at, order })
      } else if (type === FULL_SNAPSHOT) {
        this.snapshot++
        this.page.replace(data.node)
        this.seen.answers.push({ at, order })
      } else if (type === INCREMENTAL) {
        this.incremental(at, order, data)
      } else if (type === CUSTOM && data.tag === ERROR_TAG) {
        this.seen.errors.push({ at, order, message: cleanText(isRecord(data.payload) ? data.payload.message : undefined, MESSAGE_MAX) })
      }
    }
  }

  /** The observations, each list in time order (chunks may hold events a little out of order). */
  finish(): Observations {
    for (const list of [this.seen.clicks, this.seen.answers, this.seen.errors, this.seen.navigations]) list.sort(byMoment)
    return this.seen
  }

  private incremental(at: number, order: number, data: Record<string, unknown>): void {
    const source = data.source
    if (source === SOURCE_MUTATION) {
      this.page.mutate(data)
      const changed = ['adds', 'removes', 'texts', 'attributes'].some((field) => array(data[field]).length > 0)
      if (changed) this.seen.answers.push({ at, order })
    } else if (source === SOURCE_SCROLL || source === SOURCE_INPUT || source === SOURCE_MEDIA) {
      // A link to an anchor answers by scrolling, a checkbox by its input, a play button by its media.
      this.seen.answers.push({ at, order })
    } else if (source === SOURCE_MOUSE && data.type === MOUSE_CLICK && typeof data.id === 'number') {
      // A click on a page not known (no http(s) address yet) or on a node the page never showed is not judged.
      const target = this.page.target(data.id)
      if (target && this.address !== undefined) this.seen.clicks.push({ at, order, page: this.address, target, snapshot: this.snapshot })
    }
  }
}

/** A time a JavaScript Date holds from 1970 on, as the chunk schema allows (ms). */
function isTime(value: unknown): value is number {
  return typeof value === 'number' && value >= 0 && value <= LAST_DATE
}

/** Orders moments by time, then by their place in the stream. */
export function byMoment(a: Moment, b: Moment): number {
  return a.at - b.at || a.order - b.order
}
