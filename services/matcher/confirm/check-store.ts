/**
 * The SQL of confirmation: the ticket as checks read it, the recordings due for a check, a
 * recording's findings and chunks, and the write of one check (its row, the ticket's counter and
 * the project's daily budget) in one transaction.
 */
import type { Db, Queryable } from '../../../shared/db/index.js'
import type { FindingKind, TicketState } from '../store/entities.js'
import type { RecordingFinding, Verdict } from './verdict.js'

/** A ticket as confirmation reads it. */
export interface TicketForChecks {
  id: string
  projectId: string
  environmentId: string | null
  state: TicketState
  kind: FindingKind
  target: string
  pages: string[]
  /** Its control (control.ts) and subject: what a recording's findings and clicks are told by. */
  screen: string
  controlNames: string[]
  subject: string
  matched: number
  checksNextAt: number
}

/**
 * The budget's lock: one per project, in the two-key advisory space (which never meets the
 * environment lock's one-key space), so two confirmations of a project never both take the last
 * check of the day.
 */
const BUDGET_LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtext('ticket_checks budget'), hashtext($1::text))"

/** Each verdict's counter on the ticket: a fixed map, never text taken from outside. */
const COUNTER: Record<Verdict, string> = { confirmed: 'checks_confirmed', refuted: 'checks_refuted', inconclusive: 'checks_inconclusive' }

/** The ticket, or undefined when it is gone. */
export async function getTicketForChecks(db: Queryable, ticketId: string): Promise<TicketForChecks | undefined> {
  const { rows } = await db.query<{ id: string; project_id: string; environment_id: string | null; state: TicketState; kind: FindingKind; target: string; pages: string[]; screen: string; control_names: string[]; subject: string; matched: number; checks_next_at: number }>(
    'SELECT id, project_id, environment_id, state, kind, target, pages, screen, control_names, subject, matched, checks_next_at FROM tickets WHERE id = $1',
    [ticketId],
  )
  const row = rows[0]
  if (!row) return undefined
  return {
    id: row.id, projectId: row.project_id, environmentId: row.environment_id, state: row.state, kind: row.kind, target: row.target, pages: row.pages,
    screen: row.screen, controlNames: row.control_names, subject: row.subject, matched: row.matched, checksNextAt: row.checks_next_at,
  }
}

/**
 * Up to limit closed recordings of the ticket's project and environment that visited one of its
 * screens and are not checked for it yet, most recently active first: its evidence too (a check is
 * the confirmation's own verdict on a recording, so the share it gives is that of the page's
 * recordings that show the friction; leaving matched ones out left a quiet system, which matches
 * every recording within a sweep, nothing to confirm with).
 */
export async function getRecordingsToCheck(db: Queryable, ticket: TicketForChecks, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT r.id FROM recordings r
     WHERE r.project_id = $1 AND r.environment_id IS NOT DISTINCT FROM $2 AND r.closed_at IS NOT NULL
       AND r.pages && $3::text[]
       AND NOT EXISTS (SELECT 1 FROM ticket_checks c WHERE c.ticket_id = $4 AND c.recording_id = r.id)
     ORDER BY r.last_at DESC, r.id
     LIMIT $5`,
    [ticket.projectId, ticket.environmentId, ticket.pages, ticket.id, limit],
  )
  return rows.map((row) => row.id)
}

/** Whether the scan has read the recording (it has its friction_scans row). */
export async function isScanned(db: Queryable, projectId: string, recordingId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM friction_scans WHERE project_id = $1 AND recording_id = $2', [projectId, recordingId])
  return rows.length > 0
}

/** The recording's stored findings, each with its cosine distance to the ticket's vector when both have one of the same model and input. */
export async function getRecordingFindings(db: Queryable, ticketId: string, projectId: string, recordingId: string): Promise<RecordingFinding[]> {
  const { rows } = await db.query<{ kind: FindingKind; page: string; target: string; screen: string; control_names: string[]; subject: string; distance: number | null }>(
    `SELECT f.kind, f.page, f.target, f.screen, f.control_names, f.subject,
            CASE WHEN f.embedding IS NOT NULL AND t.embedding IS NOT NULL AND f.embedding_model = t.embedding_model AND f.embedding_of = t.embedding_of
                 THEN f.embedding <=> t.embedding END AS distance
     FROM friction_findings f JOIN tickets t ON t.id = $1
     WHERE f.project_id = $2 AND f.recording_id = $3`,
    [ticketId, projectId, recordingId],
  )
  return rows.map((row) => ({ kind: row.kind, page: row.page, target: row.target, screen: row.screen, names: row.control_names, subject: row.subject, distance: row.distance === null ? null : Number(row.distance) }))
}

/** The recording's chunks in seq order. */
export async function getChunks(db: Queryable, projectId: string, recordingId: string): Promise<Array<{ seq: number; object_key: string }>> {
  const { rows } = await db.query<{ seq: number; object_key: string }>('SELECT seq, object_key FROM recording_chunks WHERE project_id = $1 AND recording_id = $2 ORDER BY seq', [projectId, recordingId])
  return rows
}

/** Checks the project has run on utcDay (YYYY-MM-DD). */
export async function checksUsed(db: Queryable, projectId: string, utcDay: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM ticket_checks WHERE project_id = $1 AND utc_day = $2', [projectId, utcDay])
  return rows[0]!.n
}

export type CheckWrite = 'recorded' | 'duplicate' | 'budget_exhausted' | 'gone'

/**
 * Records one check and counts it on the ticket, in one transaction: the project's budget lock,
 * the day's count against budget, the ticket's row (locked, as matching's join locks it, so the
 * counters and version never lose an update), the check row once (unique on ticket and recording)
 * and its counter with the ticket's version.
 */
export async function recordCheck(db: Db, check: { ticket: TicketForChecks; recordingId: string; verdict: Verdict; at: Date; utcDay: string; budget: number }): Promise<CheckWrite> {
  const { ticket } = check
  return db.withTransaction(async (client): Promise<CheckWrite> => {
    await client.query(BUDGET_LOCK_SQL, [ticket.projectId])
    if ((await checksUsed(client, ticket.projectId, check.utcDay)) >= check.budget) return 'budget_exhausted'
    const held = await client.query('SELECT 1 FROM tickets WHERE id = $1 FOR UPDATE', [ticket.id])
    if (held.rowCount === 0) return 'gone'
    const inserted = await client.query(
      `INSERT INTO ticket_checks (ticket_id, project_id, recording_id, verdict, checked_at, utc_day) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (ticket_id, recording_id) DO NOTHING`,
      [ticket.id, ticket.projectId, check.recordingId, check.verdict, check.at, check.utcDay],
    )
    if (inserted.rowCount === 0) return 'duplicate'
    const counter = COUNTER[check.verdict]
    await client.query(`UPDATE tickets SET ${counter} = ${counter} + 1, updated_at = $2, version = version + 1 WHERE id = $1`, [ticket.id, check.at])
    return 'recorded'
  })
}

/**
 * Ends a batch: the next one starts CHECKS_EVERY matched recordings after this one's start
 * (checks_next_at moves on from where it was, not from the matched count, so a ticket that
 * gathered many matches at once gets a batch for each threshold it passed). Answers the new value.
 */
export async function advanceChecksNextAt(db: Queryable, ticketId: string, from: number, every: number, at: Date): Promise<number | undefined> {
  const { rows } = await db.query<{ checks_next_at: number }>(
    `UPDATE tickets SET checks_next_at = checks_next_at + $3, updated_at = $4, version = version + 1
     WHERE id = $1 AND checks_next_at = $2 RETURNING checks_next_at`,
    [ticketId, from, every, at],
  )
  return rows[0]?.checks_next_at
}
