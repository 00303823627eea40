/** An accepted event as the grouper's batch carries it, prepared for the tables. */
import type { EventEnvelope } from '../../shared/domain/event.js'
import type { EventFacts } from './event-facts.js'
import type { GroupingResult } from './grouping/index.js'

export interface Prepared {
  envelope: EventEnvelope
  /** The body as stored: the envelope's, or a storable copy of it (see readEvent). */
  body: string
  /**
   * What the tables need of the event, taken out while preparing: the parsed event itself is then
   * garbage at once instead of living through the transaction's round trips, where every scavenge
   * on the way copied it.
   */
  facts: EventFacts
  grouping: Grouped
  issueKey: string
}

/** A grouping result with its stored form (the events.grouping column), made once per distinct error. */
export interface Grouped extends GroupingResult {
  json: string
  /** The fingerprint the project's previous version gives the error, for a project that was upgraded. */
  previousFingerprint?: string
}
