/**
 * The events agents page through (the tool server's list_issue_events; its issues are paged by
 * searchIssues in issue-list.ts): newest first, a page at a time, each row with its exact
 * position (a time in whole microseconds and the id, since a Date keeps only milliseconds) so the
 * next page starts strictly after it.
 */
import type { Queryable } from '../../../shared/db/index.js'

/** Where a page ends: its last row's time in microseconds since 1970 (text) and id. */
export interface PagePosition {
  micros: string
  id: string
}

/** SQL of a row's time as whole microseconds since 1970 (text), the exact position a page keeps. */
const micros = (column: string): string => `(extract(epoch FROM ${column}) * 1000000)::bigint::text`

/** SQL of a position's time back as timestamptz, from the microseconds parameter $n. */
const fromMicros = (param: string): string => `(timestamptz 'epoch' + ${param}::bigint * interval '1 microsecond')`

/** An event as a page lists it: the error as sent (cut to the lengths asked), not its frames. */
export interface PagedEvent {
  id: string
  occurred_at: Date
  received_at: Date
  position: string
  release: string | null
  environment: string | null
  user_agent: string | null
  error_type: string | null
  message: string | null
  stack: string | null
  page_url: string | null
}

/** Up to limit events of issueId stored whole (sampled ones have nothing to show) after the position, newest received first, message and stack cut to the characters given. */
export async function pageIssueEvents(db: Queryable, issueId: string, after: PagePosition | undefined, limit: number, chars: { message: number; stack: number }): Promise<PagedEvent[]> {
  // Walks events_issue_received (issue_id, received_at DESC); the id breaks ties.
  const { rows } = await db.query<PagedEvent>(
    `SELECT e.id, e.occurred_at, e.received_at, ${micros('e.received_at')} AS position, e.release, env.name AS environment,
            left(e.payload->'context'->>'user_agent', 512) AS user_agent, left(e.payload->'error'->>'type', 256) AS error_type,
            left(e.payload->'error'->>'message', $3) AS message, left(e.payload->'error'->>'stack', $4) AS stack,
            left(e.payload->'context'->>'url', 2048) AS page_url
       FROM events e LEFT JOIN environments env ON env.id = e.environment_id
      WHERE e.issue_id = $1 AND e.whole AND ($5::text IS NULL OR (e.received_at, e.id) < (${fromMicros('$5')}, $6::uuid))
      ORDER BY e.received_at DESC, e.id DESC
      LIMIT $2`,
    [issueId, limit, chars.message, chars.stack, after?.micros ?? null, after?.id ?? null],
  )
  return rows
}
