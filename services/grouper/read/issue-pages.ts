/**
 * The issues and events agents page through (the tool server's list_issues and list_issue_events):
 * newest first, a page at a time, each row with its exact position (a time in whole microseconds
 * and the id, since a Date keeps only milliseconds) so the next page starts strictly after it.
 */
import type { Queryable } from '../../../shared/db/index.js'
import type { IssueRow } from './issue-list.js'

/** Where a page ends: its last row's time in microseconds since 1970 (text) and id. */
export interface PagePosition {
  micros: string
  id: string
}

/** SQL of a row's time as whole microseconds since 1970 (text), the exact position a page keeps. */
const micros = (column: string): string => `(extract(epoch FROM ${column}) * 1000000)::bigint::text`

/** SQL of a position's time back as timestamptz, from the microseconds parameter $n. */
const fromMicros = (param: string): string => `(timestamptz 'epoch' + ${param}::bigint * interval '1 microsecond')`

/** What an issue page may be narrowed to; null (or false) narrows nothing. */
export interface IssueFilters {
  status: string | null
  kind: string | null
  /** Seen at or after. */
  since: Date | null
  includeNoise: boolean
  /** Issues with an event in the environment of this name. */
  environment: string | null
}

/** An issue as a page lists it. */
export interface PagedIssue extends IssueRow {
  created_at: Date
  reason_code: string
  reason_message: string
  position: string
}

/** Up to limit issues of projectId after the position, by (last_seen, id) descending. */
export async function pageIssues(db: Queryable, projectId: string, filters: IssueFilters, after: PagePosition | undefined, limit: number): Promise<PagedIssue[]> {
  const { rows } = await db.query<PagedIssue>(
    `SELECT i.id, i.title, i.culprit, i.status, i.kind, i.noise, i.event_count, i.user_count, i.session_count, i.first_seen, i.last_seen, i.created_at,
            i.reason_code, i.reason_message, ${micros('i.last_seen')} AS position
       FROM issues i
      WHERE i.project_id = $1
        AND ($2::text IS NULL OR i.status = $2)
        AND ($3::text IS NULL OR i.kind = $3)
        AND ($4::timestamptz IS NULL OR i.last_seen >= $4)
        AND ($5 OR i.noise = '')
        AND ($6::text IS NULL OR (i.last_seen, i.id) < (${fromMicros('$6')}, $7::uuid))
        AND ($8::text IS NULL OR EXISTS (
              SELECT 1 FROM events e JOIN environments env ON env.id = e.environment_id
               WHERE e.issue_id = i.id AND env.project_id = i.project_id AND env.name = $8))
      ORDER BY i.last_seen DESC, i.id DESC
      LIMIT $9`,
    [projectId, filters.status, filters.kind, filters.since, filters.includeNoise, after?.micros ?? null, after?.id ?? null, filters.environment, limit],
  )
  return rows
}

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

/** Up to limit events of issueId after the position, newest received first, message and stack cut to the characters given. */
export async function pageIssueEvents(db: Queryable, issueId: string, after: PagePosition | undefined, limit: number, chars: { message: number; stack: number }): Promise<PagedEvent[]> {
  // Walks events_issue_received (issue_id, received_at DESC); the id breaks ties.
  const { rows } = await db.query<PagedEvent>(
    `SELECT e.id, e.occurred_at, e.received_at, ${micros('e.received_at')} AS position, e.release, env.name AS environment,
            left(e.payload->'context'->>'user_agent', 512) AS user_agent, left(e.payload->'error'->>'type', 256) AS error_type,
            left(e.payload->'error'->>'message', $3) AS message, left(e.payload->'error'->>'stack', $4) AS stack,
            left(e.payload->'context'->>'url', 2048) AS page_url
       FROM events e LEFT JOIN environments env ON env.id = e.environment_id
      WHERE e.issue_id = $1 AND ($5::text IS NULL OR (e.received_at, e.id) < (${fromMicros('$5')}, $6::uuid))
      ORDER BY e.received_at DESC, e.id DESC
      LIMIT $2`,
    [issueId, limit, chars.message, chars.stack, after?.micros ?? null, after?.id ?? null],
  )
  return rows
}
