/**
 * Reads a recording chunk's body (docs/recordings.md, "The wire"): parses it, checks it against
 * schemas/recording-chunk.json (compiled once at load), and sums it up in one pass over its rrweb
 * events: first and last time, pages visited, clicks, errors. A failure names the first field at
 * fault, dotted (events.3.timestamp), so the sender knows what to fix.
 */
import { Ajv, type ErrorObject } from 'ajv'
import { readFileSync } from 'node:fs'
import { MAX_PAGES } from '../../shared/domain/recording-chunk.js'
import type { UserIdentity } from '../../shared/domain/user-key.js'
import { IngestError } from './errors.js'

/** A chunk's body as the schema lets it through (other fields are kept in the stored bytes, not read). */
interface ChunkBody {
  recording_id: string
  seq: number
  session_id: string
  user?: UserIdentity
  release?: string
  environment?: string
  events: Array<{ type: number; timestamp: number; data: Record<string, unknown> }>
}

/** What the ingress takes from a chunk for its stream entry. */
export interface ChunkSummary {
  recordingId: string
  seq: number
  sessionId: string
  user: UserIdentity | undefined
  release: string | undefined
  environment: string | undefined
  /** The earliest and latest event time (ms epoch): events may come out of order. */
  firstAt: number
  lastAt: number
  /** Paths with their query, in order of first visit, at most MAX_PAGES. */
  pages: string[]
  clicks: number
  errors: number
}

// rrweb 2's numbers (EventType, IncrementalSource, MouseInteractions in @rrweb/types): stable, as
// every recording ever made carries them.
const META = 4
const INCREMENTAL = 3
const CUSTOM = 5
const MOUSE_INTERACTION = 2
const CLICK = 2
/** The custom event the SDK adds when it captures an error while recording. */
const ERROR_TAG = 'svc.error'
/** A page is kept to this many characters; an href longer than PAGE_URL_MAX is read only that far. */
const PAGE_MAX = 500
const PAGE_URL_MAX = 16 * 1024

const schema = JSON.parse(readFileSync(new URL('../../schemas/recording-chunk.json', import.meta.url), 'utf8')) as object
const validate = new Ajv({ allErrors: false, strict: true }).compile<ChunkBody>(schema)

/** Returns the chunk's summary, or throws IngestError invalid_json / invalid_recording. */
export function parseRecordingChunk(text: string): ChunkSummary {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new IngestError('invalid_json', { message: 'The chunk is not valid JSON. Send one JSON object encoded as UTF-8 (gzipped or not).' })
  }
  if (!validate(value)) throw new IngestError('invalid_recording', describe(validate.errors?.[0]))
  const chunk = value
  return {
    recordingId: chunk.recording_id.toLowerCase(),
    seq: chunk.seq,
    sessionId: chunk.session_id,
    user: userOf(chunk.user),
    release: chunk.release,
    environment: chunk.environment,
    ...summarise(chunk.events),
  }
}

/** One pass over the events: times, pages, clicks and errors. */
function summarise(events: ChunkBody['events']): Pick<ChunkSummary, 'firstAt' | 'lastAt' | 'pages' | 'clicks' | 'errors'> {
  let firstAt = Infinity
  let lastAt = -Infinity
  let clicks = 0
  let errors = 0
  const pages: string[] = []
  let lastHref: unknown
  for (const { type, timestamp, data } of events) {
    if (timestamp < firstAt) firstAt = timestamp
    if (timestamp > lastAt) lastAt = timestamp
    if (type === INCREMENTAL) {
      if (data.source === MOUSE_INTERACTION && data.type === CLICK) clicks++
    } else if (type === META) {
      // A meta event comes with every full snapshot, most of them on the page before.
      if (pages.length >= MAX_PAGES || data.href === lastHref) continue
      lastHref = data.href
      const page = pageOf(data.href)
      if (page !== undefined && !pages.includes(page)) pages.push(page)
    } else if (type === CUSTOM && data.tag === ERROR_TAG) {
      errors++
    }
  }
  return { firstAt, lastAt, pages, clicks, errors }
}

/** The path and query of an http(s) address, at most PAGE_MAX characters; undefined for anything else. */
function pageOf(href: unknown): string | undefined {
  if (typeof href !== 'string') return undefined
  let url: URL
  try {
    url = new URL(href.slice(0, PAGE_URL_MAX))
  } catch {
    return undefined
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  return `${url.pathname}${url.search}`.slice(0, PAGE_MAX)
}

/** The user's id, email and username, when any is given: other fields are not the contract's. */
function userOf(user: UserIdentity | undefined): UserIdentity | undefined {
  if (!user) return undefined
  const identity: UserIdentity = {}
  if (user.id) identity.id = user.id
  if (user.email) identity.email = user.email
  if (user.username) identity.username = user.username
  return Object.keys(identity).length > 0 ? identity : undefined
}

const HINTS: Readonly<Record<string, string>> = {
  recording_id: " (a UUID with hyphens: the SDK's id for the recording)",
  seq: ' (a whole number from 0 to 999999: the chunk number)',
  events: ' (rrweb events, at least one)',
}

function describe(error: ErrorObject | undefined): { field: string; message: string } {
  if (!error) return { field: '', message: 'The chunk does not match the schema. Fix it and send the chunk again.' }
  const path = error.instancePath.slice(1).replaceAll('/', '.')
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty
    const field = path ? `${path}.${missing}` : missing
    return { field, message: `Field ${field} is required. Add it and send the chunk again.` }
  }
  const field = path || '(body)'
  const what = error.keyword === 'pattern' ? 'has the wrong format' : (error.message ?? 'is invalid')
  return { field, message: `Field ${field} ${what}${HINTS[field] ?? ''}. Fix it and send the chunk again.` }
}
