/**
 * A stored event's JSON read back for the issue page. The grouping column is ours, but older events
 * were stored by older grouping versions, and the payload is whatever the sender put in it (the
 * schema does not describe breadcrumbs at all): every field is checked, and anything odd is
 * dropped or shown as text, never trusted as a shape.
 */

export interface SourceLines {
  pre: string[]
  line: string
  post: string[]
}

export interface ShownFrame {
  function: string
  file: string
  line?: number
  column?: number
  inApp: boolean
  native: boolean
  /** Firefox: the async boundary the stack crossed before this frame ("promise callback"). */
  asyncCause?: string
  original?: { file: string; line: number; column?: number; function?: string; context?: SourceLines }
  /** Why symbolication left the frame minified (no_position, no_debug_id, map_missing, no_mapping, map_unparseable). */
  unresolved?: string
}

export interface ShownGrouping {
  version?: number
  frames: ShownFrame[]
  /** Why the event has no frames or none in-app (not_an_error, cross_origin, ...). */
  stackNote?: string
}

export interface ShownBreadcrumb {
  at?: Date
  /** The crumb's type and category, as given ("http", "ui.click"). */
  kind: string
  message: string
  /** A few data fields as text. */
  data: Array<[string, string]>
}

/** The trail shown before an error; the SDK keeps 50, the schema lets a sender send 200. */
export const BREADCRUMBS_SHOWN = 50
const DATA_FIELDS_SHOWN = 6
const TEXT_MAX = 1000
const VALUE_MAX = 200

/** The frames and stack note of an events.grouping value. */
export function readGrouping(value: unknown): ShownGrouping {
  const grouping = asRecord(value)
  const frames = Array.isArray(grouping.frames) ? grouping.frames.map(readFrame).filter((frame): frame is ShownFrame => frame !== undefined) : []
  return { version: numberOr(grouping.version), frames, stackNote: stringOr(grouping.stack_note) }
}

function readFrame(value: unknown): ShownFrame | undefined {
  const raw = asRecord(value)
  if (typeof raw.file !== 'string' && typeof raw.function !== 'string') return undefined
  const frame: ShownFrame = {
    function: stringOr(raw.function) ?? '',
    file: stringOr(raw.file) ?? '',
    line: numberOr(raw.line),
    column: numberOr(raw.column),
    inApp: raw.inApp === true,
    native: raw.native === true,
    asyncCause: stringOr(raw.asyncCause),
    unresolved: stringOr(raw.unresolved),
  }
  const original = asRecord(raw.original)
  const file = stringOr(original.file)
  const line = numberOr(original.line)
  if (file !== undefined && line !== undefined) {
    frame.original = { file, line, column: numberOr(original.column), function: stringOr(original.function) || undefined, context: readContext(original.context) }
  }
  return frame
}

function readContext(value: unknown): SourceLines | undefined {
  const context = asRecord(value)
  if (typeof context.line !== 'string') return undefined
  return { pre: stringList(context.pre), line: context.line, post: stringList(context.post) }
}

/** The last BREADCRUMBS_SHOWN breadcrumbs of an event's payload, oldest first. */
export function readBreadcrumbs(value: unknown): ShownBreadcrumb[] {
  if (!Array.isArray(value)) return []
  return value.slice(-BREADCRUMBS_SHOWN).map((item): ShownBreadcrumb => {
    const crumb = asRecord(item)
    const kind = [stringOr(crumb.type), stringOr(crumb.category)].filter((part, i, all): part is string => !!part && all.indexOf(part) === i).join(' · ')
    const message = typeof crumb.message === 'string' ? crumb.message : crumb.message === undefined ? (typeof item === 'object' ? '' : textOf(item)) : textOf(crumb.message)
    const data = Object.entries(asRecord(crumb.data))
      .slice(0, DATA_FIELDS_SHOWN)
      .map(([key, field]): [string, string] => [cut(key, VALUE_MAX), cut(textOf(field), VALUE_MAX)])
    return { at: timeOf(crumb.timestamp), kind, message: cut(message, TEXT_MAX), data }
  })
}

/** A breadcrumb timestamp: the SDK's milliseconds, seconds (other SDKs' floats), or ISO text. */
function timeOf(value: unknown): Date | undefined {
  let ms: number
  if (typeof value === 'number') ms = value > 1e11 ? value : value * 1000
  else if (typeof value === 'string') ms = Date.parse(value)
  else return undefined
  // Outside JavaScript's date range toISOString throws; such a time says nothing anyway.
  return Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms) : undefined
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === undefined) return ''
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []
}
