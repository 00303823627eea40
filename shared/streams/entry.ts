/** A stream entry as the runtime hands it to a handler. */

export interface StreamEntry {
  id: string
  fields: Record<string, string>
  /** 1 on first delivery; counts deliveries, including retries and reclaims. */
  attempt: number
  /** The stream it was read from (the main stream or the group's retry stream). */
  source: string
  /** Id on the main stream; differs from id for an entry read from the retry stream. */
  origin: string
}

/** What a handler is told besides its entries. */
export interface HandlerContext {
  /**
   * Aborts when another consumer took any of the entries (this one stalled past its lease): a
   * long handler should stop, since its result will be the other consumer's to write.
   */
  signal: AbortSignal
}

/** An entry from Redis's flat reply; a retried entry carries its attempt and origin as fields. */
export function toEntry(source: string, id: string, flat: string[], deliveries: number): StreamEntry {
  const fields: Record<string, string> = {}
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!
  let attempt = deliveries
  const carried = fields.__attempt
  const origin = fields.__origin ?? id
  if (carried !== undefined) {
    // A retried entry carries the attempt it is on; redeliveries of it add to that.
    attempt = Number(carried) + deliveries - 1
    delete fields.__attempt
    delete fields.__origin
  }
  return { id, fields, attempt, source, origin }
}
