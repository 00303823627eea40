/**
 * svc reset-friction-tickets' work, in one transaction: archive every known problem of an
 * environment and its issue (the state and status they had kept), fail their queued work
 * (confirmation jobs, queued or running investigations) and the pending matching of findings
 * inside the lookback, detach recordings from the archived issues, and delete the matching
 * decisions of findings inside the lookback so a backfill decides them again. Recordings, checks
 * and matches stay for audit. Refused, changing nothing, while a fix of any of those issues is in
 * flight or its pull request is open (not yet seen merged or closed: docs/fixes.md, "Following a
 * pull request to its end"). A finding is inside the lookback when its recording's last
 * activity is, as `svc backfill-tickets` picks recordings.
 */
import type pg from 'pg'
import { STOPS } from '../../services/investigator/stops.js'
import type { Db } from '../../shared/db/index.js'
import { CommandStop, cutoffOf, type Target } from './target.js'

/** What the investigation records say stopped them: a code of the stop catalogue, with its remediation. */
export const RESET_REASON = {
  code: 'known_problems_reset',
  message: 'The known problems of this environment were reset (svc reset-friction-tickets): this issue was archived before its investigation ended.',
  remediation: STOPS.known_problems_reset,
} as const

export interface ResetPlan {
  tickets: number
  issues: number
  /** Friction jobs (confirmation of these tickets, matching inside the lookback) pending or claimed. */
  jobs: number
  investigations: number
  recordingLinks: number
  decisions: number
}

interface Blocker {
  issue_id: string
  title: string
  why: string
}

/** Locks and reads what the reset would change; refuses (CommandStop 1) while a fix is in flight or its pull request open. */
async function plan(client: pg.PoolClient, target: Target, cutoff: Date): Promise<{ plan: ResetPlan; ticketIds: string[]; issueIds: string[] }> {
  const { rows: tickets } = await client.query<{ id: string; issue_id: string }>(
    `SELECT id, issue_id FROM tickets WHERE project_id = $1 AND environment_id = $2 AND state <> 'archived' ORDER BY id FOR UPDATE`,
    [target.projectId, target.environmentId],
  )
  const ticketIds = tickets.map((t) => t.id)
  const issueIds = [...new Set(tickets.map((t) => t.issue_id))]
  // Locked too: a fix cannot start on them (its row's key share waits) until this ends.
  await client.query('SELECT id FROM issues WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE', [issueIds])
  await refuseWhileFixing(client, issueIds)
  const { rows } = await client.query<Omit<ResetPlan, 'tickets' | 'issues'>>(
    `SELECT (SELECT count(*)::int FROM friction_jobs j WHERE ${JOBS_TO_FAIL}) AS jobs,
            (SELECT count(*)::int FROM investigations v WHERE v.issue_id = ANY($5::uuid[]) AND v.state IN ('queued', 'analyzing')) AS investigations,
            (SELECT count(*)::int FROM issue_recordings r WHERE r.issue_id = ANY($5::uuid[])) AS "recordingLinks",
            (SELECT count(*)::int FROM matching_decisions d WHERE d.finding_id IN (${FINDINGS_INSIDE})) AS decisions`,
    [target.projectId, target.environmentId, cutoff, ticketIds, issueIds],
  )
  return { plan: { tickets: ticketIds.length, issues: issueIds.length, ...rows[0]! }, ticketIds, issueIds }
}

/** The environment's findings inside the lookback ($1 project, $2 environment, $3 cutoff). */
const FINDINGS_INSIDE = `SELECT f.id FROM friction_findings f JOIN recordings r ON r.project_id = f.project_id AND r.id = f.recording_id
  WHERE f.project_id = $1 AND f.environment_id = $2 AND r.last_at >= $3`

/** Pending or claimed: confirmation of the tickets ($4), and matching of findings inside the lookback. */
const JOBS_TO_FAIL = `j.state IN ('pending', 'claimed') AND j.project_id = $1 AND (
  (j.kind = 'confirm' AND j.subject = ANY($4::uuid[])) OR (j.kind = 'match' AND j.subject IN (${FINDINGS_INSIDE})))`

async function refuseWhileFixing(client: pg.PoolClient, issueIds: string[]): Promise<void> {
  // A delivered pull request is open until the webhook or the poller sees it merged or closed (the
  // fix then ends merged or closed): an issue whose latest fix ended so blocks nothing, whatever
  // status its delivery left on the issue and its known problem.
  const { rows } = await client.query<Blocker>(
    `SELECT i.id AS issue_id, i.title,
            CASE WHEN f.state = 'queued' THEN 'a fix is queued'
                 WHEN f.state = 'fixing' THEN 'a fix is being built'
                 WHEN f.state IN ('pr_draft', 'pr_created') THEN 'its fix pull request is open' || coalesce(' (' || nullif(f.pr_url, '') || ')', '')
                 ELSE 'the issue is ' || i.status END AS why
       FROM issues i
       LEFT JOIN LATERAL (SELECT x.state, x.pr_url FROM fixes x WHERE x.issue_id = i.id
                           ORDER BY (x.state IN ('queued', 'fixing')) DESC, x.created_at DESC LIMIT 1) f ON true
      WHERE i.id = ANY($1::uuid[])
        AND (f.state IN ('queued', 'fixing', 'pr_draft', 'pr_created')
             OR ((f.state IS NULL OR f.state NOT IN ('merged', 'closed'))
                 AND (i.status IN ('fixing', 'pr_draft', 'pr_created')
                      OR EXISTS (SELECT 1 FROM tickets t WHERE t.issue_id = i.id AND t.state IN ('fixing', 'pr_draft', 'pr_created')))))
      ORDER BY i.id`,
    [issueIds],
  )
  if (rows.length === 0) return
  const list = rows.map((b) => `  ${b.issue_id} ${JSON.stringify(b.title.slice(0, 80))}: ${b.why}`).join('\n')
  throw new CommandStop(
    1,
    `refused: ${rows.length} known problem(s) of this environment have a fix in flight or a fix pull request open, and a reset archives every one:\n${list}\n` +
      'Wait for the fixes to end and merge or close their pull requests, then run it again. Nothing was changed.',
  )
}

/** Archives the environment's known problems (or, with confirm false, only says what it would do). */
export async function resetFrictionTickets(db: Db, target: Target, confirm: boolean): Promise<ResetPlan> {
  const cutoff = await cutoffOf(db, target.since)
  return db.withTransaction(async (client) => {
    // The environment's matching lock first (services/matcher/match/environment-lock.ts): no matcher joins or creates a ticket while the reset archives them.
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1::text || coalesce($2::text, '')))", [target.projectId, target.environmentId])
    const { plan: planned, ticketIds, issueIds } = await plan(client, target, cutoff)
    // Without --confirm nothing is written: the transaction only held the locks while it read.
    if (!confirm) return planned
    await client.query(
      `UPDATE tickets SET previous_state = state, state = 'archived', updated_at = now(), version = version + 1 WHERE id = ANY($1::uuid[])`,
      [ticketIds],
    )
    await client.query(`UPDATE issues SET previous_status = status, status = 'archived' WHERE id = ANY($1::uuid[]) AND status <> 'archived'`, [issueIds])
    await client.query(
      `UPDATE friction_jobs j SET state = 'failed', error = 'reset', lease_until = NULL, updated_at = now(), version = version + 1 WHERE ${JOBS_TO_FAIL}`,
      [target.projectId, target.environmentId, cutoff, ticketIds],
    )
    await failInvestigations(client, issueIds)
    await client.query('DELETE FROM issue_recordings WHERE issue_id = ANY($1::uuid[])', [issueIds])
    await client.query(`DELETE FROM matching_decisions WHERE finding_id IN (${FINDINGS_INSIDE})`, [target.projectId, target.environmentId, cutoff])
    return planned
  })
}

/** Queued or running investigations of the archived issues end as stops that say why. */
async function failInvestigations(client: pg.PoolClient, issueIds: string[]): Promise<void> {
  await client.query(
    `WITH stopped AS (
       UPDATE investigations SET state = 'needs_human', finished_at = now(), lease_until = now(), version = version + 1
        WHERE issue_id = ANY($1::uuid[]) AND state IN ('queued', 'analyzing') RETURNING id)
     INSERT INTO investigation_outcomes (investigation_id, kind, reason_code, reason_message, remediation)
     SELECT id, 'needs_human', $2, $3, $4 FROM stopped ON CONFLICT (investigation_id) DO NOTHING`,
    [issueIds, RESET_REASON.code, RESET_REASON.message, RESET_REASON.remediation],
  )
}
