/**
 * Reads a Sentry envelope: a JSON header line, then items, each a JSON header line and a payload.
 * A payload's length is its header's `length` in bytes, else it runs to the next newline (or the
 * end). The body is untrusted: every step is bounded by the body's size and the item cap, and any
 * shape it cannot read is refused with invalid_envelope naming where.
 */
import { IngestError } from '../errors.js'
import { isObject } from './values.js'

/** More items than any SDK sends in one envelope (an event with its attachments, a client report). */
export const MAX_ITEMS = 100

export interface EnvelopeItem {
  /** The item header's type ("event", "session", "attachment", ...), as sent. */
  type: string
  payload: Buffer
}

export interface Envelope {
  header: Record<string, unknown>
  items: EnvelopeItem[]
}

const NEWLINE = 0x0a

/** Splits an envelope body into its header and items; throws IngestError invalid_envelope. */
export function parseEnvelope(body: Buffer): Envelope {
  let end = lineEnd(body, 0)
  const header = jsonObject(body.subarray(0, end), 'The envelope header (first line)')
  const items: EnvelopeItem[] = []
  let at = end + 1
  while (at < body.length) {
    end = lineEnd(body, at)
    if (end === at || (end === at + 1 && body[at] === 0x0d)) {
      at = end + 1 // blank lines between items (a trailing newline) carry nothing
      continue
    }
    if (items.length >= MAX_ITEMS) throw invalid(`The envelope has more than ${MAX_ITEMS} items. Send fewer items per envelope.`)
    const where = `Item ${items.length + 1}'s header`
    const itemHeader = jsonObject(body.subarray(at, end), where)
    const type = itemHeader.type
    if (typeof type !== 'string' || type === '') throw invalid(`${where} has no "type". Name the item's type.`)
    const start = end + 1
    const length = itemHeader.length
    let payloadEnd: number
    if (length === undefined || length === null) {
      payloadEnd = start >= body.length ? body.length : lineEnd(body, start)
    } else {
      if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) throw invalid(`${where} has a "length" that is not a byte count.`)
      payloadEnd = start + length
      if (payloadEnd > body.length) throw invalid(`${where} says "length": ${length}, but the body ends ${payloadEnd - body.length} bytes sooner. Send the whole envelope.`)
      if (payloadEnd < body.length && body[payloadEnd] !== NEWLINE) throw invalid(`${where} says "length": ${length}, but no newline follows that many bytes. Send the payload's length in bytes.`)
    }
    items.push({ type, payload: body.subarray(Math.min(start, body.length), payloadEnd) })
    at = payloadEnd + 1 // the newline after a payload is optional at the end
  }
  return { header, items }
}

/** The index of the newline ending the line at start, or the body's length. */
function lineEnd(body: Buffer, start: number): number {
  const at = body.indexOf(NEWLINE, start)
  return at < 0 ? body.length : at
}

/** The JSON object on one line; throws invalid_envelope saying what the line was. */
export function jsonObject(bytes: Buffer, where: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(bytes.toString('utf8'))
  } catch {
    throw invalid(`${where} is not JSON. Send the envelope as the SDK wrote it.`)
  }
  if (!isObject(value)) throw invalid(`${where} is not a JSON object.`)
  return value
}

function invalid(message: string): IngestError {
  return new IngestError('invalid_envelope', { message })
}
