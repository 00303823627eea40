/**
 * What a project's stored events take, for the storage panel and the per-project gauges: how many
 * rows (every row: whole events and the slim sampled ones alike) and the oldest one's receipt.
 * Both go through the (project_id, received_at DESC) index, which stays on the partitioned table:
 * the oldest is one index probe; the count is an index-only scan that stops at a cap, because
 * counting ten million rows on every page view costs seconds. Callers cache the answer.
 */
import type { Queryable } from '../../../shared/db/index.js'

/** Rows counted at most: past it the figure reads "more than". About a tenth of a second of index scan. */
export const EVENTS_COUNT_CAP = 1_000_000

/** A project's stored events as counted at one moment. */
export interface EventsStorage {
  /** Rows stored, at most the cap. */
  events: number
  /** True when counting stopped at the cap: there are at least that many. */
  capped: boolean
  /** When the oldest stored event was received; null without any. */
  oldestAt: Date | null
}

/** Counts projectId's stored events (up to cap) and finds the oldest one's receipt. */
export async function getEventsStorage(db: Queryable, projectId: string, cap: number = EVENTS_COUNT_CAP): Promise<EventsStorage> {
  const { rows } = await db.query<{ events: number; oldest_at: Date | null }>(
    `SELECT (SELECT count(*)::int FROM (SELECT 1 FROM events WHERE project_id = $1 LIMIT $2) counted) AS events,
            (SELECT received_at FROM events WHERE project_id = $1 ORDER BY received_at LIMIT 1) AS oldest_at`,
    [projectId, cap + 1],
  )
  const row = rows[0]!
  return { events: Math.min(row.events, cap), capped: row.events > cap, oldestAt: row.oldest_at }
}
