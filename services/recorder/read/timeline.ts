/**
 * "What the user did and what went wrong", told from a recording's rrweb events: the pages it
 * navigated to (meta events), the clicks (with the clicked element's tag, id, classes and text when
 * the recording has that node) and the errors the SDK marked (svc.error custom events). Everything
 * here comes from the recorded page and is untrusted text: the views escape it.
 */
import type { RrwebEvent } from './chunks.js'
import { FULL_SNAPSHOT, INCREMENTAL, META, CUSTOM, SOURCE_MUTATION, SOURCE_MOUSE, MOUSE_CLICK, NODE_ELEMENT, NODE_TEXT } from '../../../shared/domain/rrweb.js'

/** Items the session page lists; a session with more says how many were left out. */
export const TIMELINE_ITEMS = 500
/** Characters of a clicked element's text, of an error message, and of a page address. */
const LABEL_TEXT = 80
const MESSAGE_TEXT = 300
const PAGE_TEXT = 300

export type TimelineItem =
  | { kind: 'navigation'; at: number; page: string }
  /** target: how the clicked element reads ("button#pay.primary “Pay now”"), undefined when the recording lacks it. */
  | { kind: 'click'; at: number; target: string | undefined }
  /** eventId: the SDK's event_id of the error event the SDK sent with it. */
  | { kind: 'error'; at: number; message: string; eventId: string | undefined }

export interface Timeline {
  items: TimelineItem[]
  /** Items past TIMELINE_ITEMS, not listed. */
  omitted: number
  /** The first and last event times (ms): the replay's 0 and its end. */
  start: number | undefined
  end: number | undefined
}

/** What the builder keeps of a recorded node: enough to name a clicked element. */
interface KnownNode {
  tag?: string
  attributes?: Record<string, unknown>
  text?: string
  children: number[]
}

/** Builds a recording's timeline from its events, fed one chunk at a time in order. */
export class TimelineBuilder {
  private readonly timeline: Timeline = { items: [], omitted: 0, start: undefined, end: undefined }
  private nodes = new Map<number, KnownNode>()
  /** The navigation of the meta event just read, until the event after it is known. */
  private loading: { kind: 'navigation'; at: number; page: string } | undefined

  /** Takes the next chunk's events. */
  add(events: readonly RrwebEvent[]): void {
    for (const event of events) {
      const { timestamp: at, data } = event
      this.timeline.start = Math.min(this.timeline.start ?? at, at)
      this.timeline.end = Math.max(this.timeline.end ?? at, at)
      const loaded = this.loading
      this.loading = undefined
      if (event.type === META && typeof data.href === 'string') this.push((this.loading = { kind: 'navigation', at, page: shownPage(data.href) }))
      else if (event.type === FULL_SNAPSHOT) {
        // The page shows once the snapshot after its meta event is drawn: that is when it loaded.
        if (loaded) loaded.at = at
        this.indexSnapshot(data.node)
      }
      else if (event.type === INCREMENTAL && data.source === SOURCE_MUTATION) this.applyMutation(data)
      else if (event.type === INCREMENTAL && data.source === SOURCE_MOUSE && data.type === MOUSE_CLICK) this.push({ kind: 'click', at, target: typeof data.id === 'number' ? this.describe(data.id) : undefined })
      else if (event.type === CUSTOM && data.tag === 'svc.error') this.push(errorItem(at, data.payload))
    }
  }

  /** The timeline, oldest first (chunks may hold events a little out of order). */
  finish(): Timeline {
    this.timeline.items.sort((a, b) => a.at - b.at)
    return this.timeline
  }

  private push(item: TimelineItem): void {
    if (this.timeline.items.length < TIMELINE_ITEMS) this.timeline.items.push(item)
    else this.timeline.omitted++
  }

  /** A full snapshot replaces the page: its tree is the nodes known from now on. */
  private indexSnapshot(root: unknown): void {
    this.nodes = new Map()
    const pending: unknown[] = [root]
    while (pending.length > 0) {
      const node = pending.pop()
      const id = this.remember(node)
      if (id === undefined) continue
      const childNodes = (node as { childNodes?: unknown }).childNodes
      if (!Array.isArray(childNodes)) continue
      for (const child of childNodes) {
        const childId = (child as { id?: unknown } | null)?.id
        if (typeof childId === 'number') this.nodes.get(id)!.children.push(childId)
        pending.push(child)
      }
    }
  }

  /** Added nodes join their parent; changed text and attributes are kept. Removed nodes may still be named by a click just before. */
  private applyMutation(data: Record<string, unknown>): void {
    for (const add of array(data.adds)) {
      const { parentId, node } = add as { parentId?: unknown; node?: unknown }
      const id = this.remember(node)
      if (id !== undefined && typeof parentId === 'number') this.nodes.get(parentId)?.children.push(id)
    }
    for (const change of array(data.texts)) {
      const { id, value } = change as { id?: unknown; value?: unknown }
      const known = typeof id === 'number' ? this.nodes.get(id) : undefined
      if (known && typeof value === 'string') known.text = value
    }
    for (const change of array(data.attributes)) {
      const { id, attributes } = change as { id?: unknown; attributes?: unknown }
      const known = typeof id === 'number' ? this.nodes.get(id) : undefined
      if (known && isRecord(attributes)) known.attributes = { ...known.attributes, ...attributes }
    }
  }

  private remember(node: unknown): number | undefined {
    if (!isRecord(node) || typeof node.id !== 'number') return undefined
    const known: KnownNode = { children: [] }
    if (node.type === NODE_ELEMENT && typeof node.tagName === 'string') {
      known.tag = node.tagName.toLowerCase()
      if (isRecord(node.attributes)) known.attributes = node.attributes
    }
    if (node.type === NODE_TEXT && typeof node.textContent === 'string') known.text = node.textContent
    this.nodes.set(node.id, known)
    return node.id
  }

  /** How a clicked element reads: tag#id.class.class “its text”. */
  private describe(id: number): string | undefined {
    const node = this.nodes.get(id)
    if (!node?.tag) return undefined
    const attributes = node.attributes ?? {}
    let label = node.tag
    if (typeof attributes.id === 'string' && attributes.id) label += `#${attributes.id}`
    if (typeof attributes.class === 'string') label += attributes.class.split(/\s+/).filter(Boolean).slice(0, 3).map((name) => `.${name}`).join('')
    const text = this.textOf(id) || [attributes['aria-label'], attributes.title, attributes.value].find((v): v is string => typeof v === 'string' && v.trim() !== '')?.trim() || ''
    return text ? `${clip(label, LABEL_TEXT)} “${clip(text, LABEL_TEXT)}”` : clip(label, LABEL_TEXT)
  }

  /** The element's text, depth first, until there is enough of it; styles and scripts are not text. */
  private textOf(id: number): string {
    let text = ''
    const pending = [id]
    const seen = new Set<number>()
    while (pending.length > 0 && text.length < LABEL_TEXT) {
      const current = pending.pop()!
      if (seen.has(current)) continue
      seen.add(current)
      const node = this.nodes.get(current)
      if (!node || node.tag === 'style' || node.tag === 'script') continue
      if (node.text !== undefined && node.tag === undefined) text += ` ${node.text}`
      for (let i = node.children.length - 1; i >= 0; i--) pending.push(node.children[i]!)
    }
    return text.replace(/\s+/g, ' ').trim()
  }
}

function errorItem(at: number, payload: unknown): TimelineItem {
  const fields = isRecord(payload) ? payload : {}
  const message = typeof fields.message === 'string' ? clip(fields.message, MESSAGE_TEXT) : ''
  const eventId = typeof fields.event_id === 'string' && fields.event_id.length <= 64 ? fields.event_id : undefined
  return { kind: 'error', at, message, eventId }
}

/** A page as the recordings list keeps it: its path and query, or the address as sent if it is not a URL. */
function shownPage(href: string): string {
  try {
    const url = new URL(href)
    return clip(url.pathname + url.search, PAGE_TEXT)
  } catch {
    return clip(href, PAGE_TEXT)
  }
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

function array(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
