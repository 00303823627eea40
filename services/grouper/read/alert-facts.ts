/**
 * What the alerter reads of issues (docs/alerts.md): the facts that decide whether an issue may
 * alert at all (noise, triage, merged) and its title, and an issue's recent events and users for a
 * spike rule. Counting stops at the threshold, so a busy issue costs no more than a quiet one.
 */
import type { Queryable } from '../../../shared/db/index.js'

/** An issue as the alerter weighs it. */
export interface AlertIssueFacts {
  id: string
  projectId: string
  title: string
  /** '' unless the noise rules marked it. */
  noise: string
  triage: 'open' | 'resolved' | 'ignored'
  mergedInto: string | null
  /** When the grouper opened the issue, and when it last regressed it (null: never). */
  createdAt: Date
  regressedAt: Date | null
}

/** The facts of each issue among ids that exists. */
export async function issueAlertFacts(db: Queryable, ids: readonly string[]): Promise<Map<string, AlertIssueFacts>> {
  if (ids.length === 0) return new Map()
  const { rows } = await db.query<{ id: string; project_id: string; title: string; noise: string; triage: AlertIssueFacts['triage']; merged_into: string | null; created_at: Date; regressed_at: Date | null }>(
    'SELECT id, project_id, title, noise, triage, merged_into, created_at, regressed_at FROM issues WHERE id = ANY($1::uuid[])',
    [[...ids]],
  )
  return new Map(
    rows.map((row) => [row.id, { id: row.id, projectId: row.project_id, title: row.title, noise: row.noise, triage: row.triage, mergedInto: row.merged_into, createdAt: row.created_at, regressedAt: row.regressed_at }]),
  )
}

/** An issue's events and distinct users received in the last minutes, each counted up to its cap plus one. */
export async function recentIssueCounts(db: Queryable, issueId: string, minutes: number, caps: { events: number; users: number }): Promise<{ events: number; users: number }> {
  const { rows } = await db.query<{ events: number; users: number }>(
    `SELECT (SELECT count(*) FROM (SELECT 1 FROM events WHERE issue_id = $1 AND received_at > now() - make_interval(mins => $2) LIMIT $3) e)::int AS events,
            (SELECT count(*) FROM (SELECT DISTINCT user_key FROM (SELECT user_key FROM events WHERE issue_id = $1 AND received_at > now() - make_interval(mins => $2) AND user_key IS NOT NULL) k LIMIT $4) u)::int AS users`,
    [issueId, minutes, caps.events + 1, caps.users + 1],
  )
  return rows[0] ?? { events: 0, users: 0 }
}
