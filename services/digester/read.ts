/**
 * The latest digests of a project as plain JSON-able objects: what the dashboard's digest page, the
 * project API and the tool server read. The text is the payload exactly as it was (or will be)
 * delivered; before the check composed it, there is none.
 */
import type { Queryable } from '../../shared/db/index.js'
import type { ItemLink } from './store/entities.js'

/** One digest as the read paths answer it. */
export interface DigestView {
  id: string
  local_date: string
  timezone: string
  /** queued or running (written, waiting for its check or its delivery), delivered, kept (no chat connected), empty (nothing to report), undelivered. */
  state: string
  /** Where a digest on its way is: write, check or deliver. */
  step: string
  due_at: string
  window_start: string | null
  window_end: string | null
  written_by: string
  delivered_at: string | null
  /** Why it was not delivered (chat_rejected, chat_unavailable, ...), with the redacted reason. */
  error_code: string
  error: string
  /** The message as delivered (or to be delivered); null until the check composed it. */
  text: string | null
  items: DigestItemView[]
}

export interface DigestItemView {
  position: number
  kind: 'issue' | 'known_problem'
  issue_id: string
  ticket_id: string | null
  title: string
  outcome: string
  users: number
  pull_request_url: string | null
  links: ItemLink[]
  completed_at: string
  /** written: its paragraph passed the check; mechanical: it fell back (check_reason says why); '' before the check. */
  check_result: string
  check_reason: string
}

interface DigestRow {
  id: string
  local_date: string
  timezone: string
  state: string
  step: string
  due_at: Date
  window_start: Date | null
  window_end: Date | null
  written_by: string
  delivered_at: Date | null
  error_code: string
  error: string
  payload: string | null
}

interface ItemRow {
  digest_id: string
  position: number
  subject: 'issue' | 'known_problem'
  issue_id: string
  ticket_id: string | null
  title: string
  outcome: string
  users: number
  pr_url: string
  links: ItemLink[]
  completed_at: Date
  check_result: string
  check_reason: string
}

/** Most digests one read answers. */
const MAX_LIMIT = 50

/** The project's latest digests (newest local date first), at most limit (1 to 50), with their items. */
export async function readLatestDigests(db: Queryable, projectId: string, limit: number): Promise<DigestView[]> {
  const count = Math.min(MAX_LIMIT, Math.max(1, Math.floor(Number.isFinite(limit) ? limit : 1)))
  const { rows } = await db.query<DigestRow>(
    `SELECT id, to_char(local_date, 'YYYY-MM-DD') AS local_date, timezone, state, step, due_at, window_start, window_end, written_by, delivered_at, error_code, error, payload
       FROM digests WHERE project_id = $1 ORDER BY local_date DESC LIMIT $2`,
    [projectId, count],
  )
  if (rows.length === 0) return []
  const { rows: items } = await db.query<ItemRow>(
    `SELECT digest_id, position, subject, issue_id, ticket_id, title, outcome, users, pr_url, links, completed_at, check_result, check_reason
       FROM digest_items WHERE digest_id = ANY($1::uuid[]) ORDER BY digest_id, position`,
    [rows.map((row) => row.id)],
  )
  const iso = (value: Date | null): string | null => (value ? value.toISOString() : null)
  return rows.map((row) => ({
    id: row.id,
    local_date: row.local_date,
    timezone: row.timezone,
    state: row.state,
    step: row.step,
    due_at: row.due_at.toISOString(),
    window_start: iso(row.window_start),
    window_end: iso(row.window_end),
    written_by: row.written_by,
    delivered_at: iso(row.delivered_at),
    error_code: row.error_code,
    // The model's note (why it did not write) is internal; what a reader needs is why a digest was not delivered.
    error: row.state === 'undelivered' ? row.error : '',
    text: row.payload,
    items: items
      .filter((item) => item.digest_id === row.id)
      .map((item) => ({
        position: item.position,
        kind: item.subject,
        issue_id: item.issue_id,
        ticket_id: item.ticket_id,
        title: item.title,
        outcome: item.outcome,
        users: item.users,
        pull_request_url: item.pr_url === '' ? null : item.pr_url,
        links: item.links,
        completed_at: item.completed_at.toISOString(),
        check_result: item.check_result,
        check_reason: item.check_reason,
      })),
  }))
}

// What other actors show of the schedule and say when a chat connects, from the digester's own
// definitions so they cannot drift from what it does.
export { DIGEST_TIME, isTimeZone, zoneOrUtc } from './schedule.js'
export { connectedMessage } from './text/compose.js'
