/** The error event as the SDK sends it (schemas/error-event.json) and as it travels the events stream. */
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib'

export interface ErrorEvent {
  timestamp: string
  /** thrown: what was thrown when it was not an Error (the SDK says "string", "object", ...). */
  error: { type: string; message: string; stack: string; thrown?: string }
  breadcrumbs: unknown[]
  context: { url: string; user_agent: string }
  sdk_version: string
  platform: string
  environment?: string
  release?: string
  session_id?: string
  /** The sender's UUID for the event: sent again, it is stored once. */
  event_id?: string
  user?: { id?: string; email?: string; username?: string }
  /** File URL → debug id of the stamped files in the stack: their maps are found by id. */
  debug_ids?: Record<string, string>
  [extra: string]: unknown
}

/** One accepted event on the events stream: who sent it, when, and the body exactly as received. */
export interface EventEnvelope {
  /**
   * Event id handed back in the 202 answer; the grouper's idempotency key. Derived from the
   * sender's event_id when there is one, so an event sent again after a lost answer is stored once.
   */
  id: string
  projectId: string
  keyId: string
  /** Milliseconds since the epoch at the ingress. */
  receivedAt: number
  /** The validated JSON body, verbatim (decompressed). */
  body: string
}

/** Names of an envelope's stream entry fields, in the order envelopeValues gives their values. */
export const ENVELOPE_FIELDS = Object.freeze(['id', 'project', 'key', 'at', 'body'] as const)

/** An envelope's field values, in ENVELOPE_FIELDS order. */
export function envelopeValues(envelope: EventEnvelope): string[] {
  return [envelope.id, envelope.projectId, envelope.keyId, String(envelope.receivedAt), envelope.body]
}

/** Stream entry fields of an envelope as name, value pairs; flat strings so XADD takes them as they are. */
export function envelopeFields(envelope: EventEnvelope): string[] {
  const values = envelopeValues(envelope)
  return ENVELOPE_FIELDS.flatMap((name, i) => [name, values[i]!])
}

/** Reads an envelope back from stream entry fields; returns undefined when a field is missing. */
export function envelopeFromFields(fields: Record<string, string>): EventEnvelope | undefined {
  const { id, project, key, at, body } = fields
  if (!id || !project || !key || !at || body === undefined) return undefined
  return { id, projectId: project, keyId: key, receivedAt: Number(at), body }
}

/**
 * Packed entries: the events the ingress accepted while one batch gathered travel as one
 * stream entry (fields `n`, `encoding` and `events`), which costs Redis and the client a fraction
 * of one entry per event. Records are joined by U+001E and their fields by U+001F: a validated JSON
 * text cannot contain either raw (control characters are escaped inside strings and not allowed
 * outside), and ids, keys and times never do.
 *
 * The joined records are compressed (brotli, quality 0) and carried as base64 text. Events of one
 * turn share a schema, an SDK and often an app, so a pack of a dozen 2 KB events shrinks about
 * tenfold: Redis copies and holds a tenth of the bytes, which was most of its time per entry and
 * all of a backlog's memory. Base64 keeps every field a string, so the stream runtime's retries,
 * splits and dead letters carry a packed entry like any other.
 */
const RECORD = '\u001e'
const FIELD = '\u001f'

/** The `encoding` of a packed entry written by this version: brotli, then base64. */
export const PACKED_ENCODING = 'br64'

/** An entry written in an encoding this version cannot read (a newer writer); it must not be skipped. */
export class UnknownPackedEncoding extends Error {
  constructor(encoding: string) {
    super(`packed entry encoding "${encoding}" is unknown to this version: upgrade the worker, then replay its dead letters (svc dead-letters --replay)`)
    this.name = 'UnknownPackedEncoding'
  }
}

/** One event as a packed record: id, project, key, time and body. */
export function packedRecord(envelope: EventEnvelope): string {
  return `${envelope.id}${FIELD}${envelope.projectId}${FIELD}${envelope.keyId}${FIELD}${envelope.receivedAt}${FIELD}${envelope.body}`
}

/**
 * Quality 0, not 1: on a pack of a dozen 2 KB events it compressed in about half the time (measured
 * side by side: 29 against 51 µs an event) for about 15% more bytes, and the compression was the
 * accept path's largest cost after JSON.parse (bench:ingest's split). Any quality reads back alike.
 */
const QUALITY = 0

/** The `events` field of a packed entry in PACKED_ENCODING: the records joined and compressed. */
function packRecords(records: readonly string[]): string {
  const joined = records.join(RECORD)
  return brotliCompressSync(joined, { params: { [constants.BROTLI_PARAM_QUALITY]: QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: joined.length } }).toString('base64')
}

/** Stream entry fields of a packed entry holding these records, as XADD takes them. */
export function packedEntryFields(records: readonly string[]): string[] {
  return ['n', String(records.length), 'encoding', PACKED_ENCODING, 'events', packRecords(records)]
}

/** The joined records of a packed entry; throws UnknownPackedEncoding for an encoding it cannot read. */
function packedText(fields: Record<string, string>): string {
  const events = fields.events!
  switch (fields.encoding) {
    case undefined:
      return events // as written before compression
    case PACKED_ENCODING:
      return brotliDecompressSync(Buffer.from(events, 'base64')).toString('utf8')
    default:
      throw new UnknownPackedEncoding(fields.encoding)
  }
}

/**
 * The envelopes of a stream entry, packed or single; records that are not whole are skipped and
 * counted. Throws UnknownPackedEncoding for a pack it cannot read, so the entry is retried and
 * dead-lettered, where a replay after an upgrade finds it, instead of being skipped.
 */
export function envelopesFromFields(fields: Record<string, string>): { envelopes: EventEnvelope[]; malformed: number } {
  if (fields.events === undefined) {
    const single = envelopeFromFields(fields)
    return single ? { envelopes: [single], malformed: 0 } : { envelopes: [], malformed: 1 }
  }
  const envelopes: EventEnvelope[] = []
  let malformed = 0
  for (const record of packedText(fields).split(RECORD)) {
    const a = record.indexOf(FIELD)
    const b = record.indexOf(FIELD, a + 1)
    const c = record.indexOf(FIELD, b + 1)
    const d = record.indexOf(FIELD, c + 1)
    if (a <= 0 || b <= a + 1 || c <= b + 1 || d <= c + 1) {
      malformed++
      continue
    }
    envelopes.push({ id: record.slice(0, a), projectId: record.slice(a + 1, b), keyId: record.slice(b + 1, c), receivedAt: Number(record.slice(c + 1, d)), body: record.slice(d + 1) })
  }
  return { envelopes, malformed }
}
