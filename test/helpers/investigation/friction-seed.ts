/**
 * Rows of the friction tables written the way the matcher writes them, for the operator
 * commands' tests (backfill, reset, the upgrade across 078): recordings, scans, findings,
 * decisions, known problems on their friction-kind issues, and the fixes that block a reset.
 */
import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import type { Queryable } from '../../../shared/db/index.js'
import { childEnv } from '../env.js'
import { SVC } from '../processes.js'

const MINUTE = 60_000

/** An environment of the project (made if missing), by name. */
export async function seedEnvironment(db: Queryable, projectId: string, name: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO environments (project_id, name) VALUES ($1, $2) ON CONFLICT (project_id, name) DO UPDATE SET name = excluded.name RETURNING id`,
    [projectId, name],
  )
  return rows[0]!.id
}

/** A recording whose last activity was minutesAgo, closed unless open is set. */
export async function seedRecording(db: Queryable, projectId: string, environmentId: string, minutesAgo: number, options: { open?: boolean } = {}): Promise<string> {
  const id = randomUUID()
  const lastAt = new Date(Date.now() - minutesAgo * MINUTE)
  await db.query(
    `INSERT INTO recordings (project_id, id, environment_id, session_id, started_at, last_at, received_at, closed_at, pages)
     VALUES ($1, $2, $3, $4, $5, $6, $6, $7, '{/checkout}')`,
    [projectId, id, environmentId, `session-${id.slice(0, 8)}`, new Date(lastAt.getTime() - 5 * MINUTE), lastAt, options.open ? null : new Date(lastAt.getTime() + 30 * MINUTE)],
  )
  return id
}

/** The recording's scan with these narratives as findings ('' is an empty one); answers the findings' ids. */
export async function seedScan(db: Queryable, projectId: string, environmentId: string, recordingId: string, narratives: string[]): Promise<string[]> {
  const ids: string[] = []
  for (const [i, narrative] of narratives.entries()) {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO friction_findings (project_id, environment_id, recording_id, kind, page, target, at, narrative)
       VALUES ($1, $2, $3, 'rage_click', '/checkout', $4, now() - interval '1 hour', $5) RETURNING id`,
      [projectId, environmentId, recordingId, `button#pay-${i}`, narrative],
    )
    ids.push(rows[0]!.id)
  }
  await db.query('INSERT INTO friction_scans (project_id, recording_id, findings) VALUES ($1, $2, $3)', [projectId, recordingId, narratives.length])
  return ids
}

/** A known problem in state on its friction-kind issue (status as given, or the ticket's state). */
export async function seedTicket(db: Queryable, projectId: string, environmentId: string, state: string, issueStatus = state): Promise<{ ticketId: string; issueId: string }> {
  const ticketId = randomUUID()
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, first_seen, last_seen)
     VALUES ($1, 'friction', $2, 4, $3, 'Pay button does nothing', now(), now()) RETURNING id`,
    [projectId, `ticket:${ticketId}`, issueStatus],
  )
  const issueId = rows[0]!.id
  await db.query(
    `INSERT INTO tickets (id, project_id, environment_id, issue_id, state, kind, page, target, narrative, pages)
     VALUES ($1, $2, $3, $4, $5, 'rage_click', '/checkout', 'button#pay', 'The pay button does nothing when clicked', '{/checkout}')`,
    [ticketId, projectId, environmentId, issueId, state],
  )
  return { ticketId, issueId }
}

/** A matching decision for the finding: joined (or created) the ticket, or not_a_problem. */
export async function decide(db: Queryable, projectId: string, environmentId: string, findingId: string, decision: 'joined' | 'created' | 'not_a_problem', ticketId?: string): Promise<void> {
  await db.query(
    `INSERT INTO matching_decisions (finding_id, project_id, environment_id, decision, ticket_id, decided_by) VALUES ($1, $2, $3, $4, $5, 'embeddings')`,
    [findingId, projectId, environmentId, decision, ticketId ?? null],
  )
  if (ticketId && decision !== 'not_a_problem') {
    await db.query(
      `INSERT INTO ticket_matches (ticket_id, finding_id, project_id, recording_id, at)
       SELECT $1, f.id, f.project_id, f.recording_id, f.at FROM friction_findings f WHERE f.id = $2`,
      [ticketId, findingId],
    )
    await db.query(
      `INSERT INTO issue_recordings (issue_id, project_id, recording_id, at)
       SELECT t.issue_id, f.project_id, f.recording_id, f.at FROM friction_findings f, tickets t WHERE f.id = $2 AND t.id = $1 ON CONFLICT DO NOTHING`,
      [ticketId, findingId],
    )
  }
}

/** An investigation of the issue in state (queued or analyzing: in flight) and, optionally, its fix. */
export async function seedInvestigation(db: Queryable, issueId: string, projectId: string, state: 'queued' | 'analyzing' | 'investigated'): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO investigations (issue_id, project_id, episode, trigger, state, lease_until)
     VALUES ($1, $2, coalesce((SELECT max(episode) + 1 FROM investigations WHERE issue_id = $1), 1), 'auto', $3, now() + interval '1 hour') RETURNING id`,
    [issueId, projectId, state],
  )
  return rows[0]!.id
}

/** A fix of the issue: in flight (queued, fixing) or delivered (pr_draft with its pull request). */
export async function seedFix(db: Queryable, issueId: string, projectId: string, state: 'queued' | 'fixing' | 'pr_draft'): Promise<string> {
  const investigationId = await seedInvestigation(db, issueId, projectId, 'investigated')
  const delivered = state === 'pr_draft'
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO fixes (investigation_id, issue_id, project_id, trigger, state, lease_until, delivery, pr_number, pr_url)
     VALUES ($1, $2, $3, 'auto', $4, now() + interval '1 hour', $5, $6, $7) RETURNING id`,
    [investigationId, issueId, projectId, state, delivered ? 'draft' : '', delivered ? 7 : null, delivered ? 'https://github.com/acme/shop/pull/7' : ''],
  )
  return rows[0]!.id
}

/** The friction jobs of a project, oldest first. */
export async function jobsOf(db: Queryable, projectId: string): Promise<Array<{ kind: string; subject: string; state: string; source: string; not_before: Date; allow_missing_embeddings: boolean; error: string | null }>> {
  const { rows } = await db.query<{ kind: string; subject: string; state: string; source: string; not_before: Date; allow_missing_embeddings: boolean; error: string | null }>(
    'SELECT kind, subject, state, source, not_before, allow_missing_embeddings, error FROM friction_jobs WHERE project_id = $1 ORDER BY not_before, created_at',
    [projectId],
  )
  return rows
}

/** Runs `svc args…` to its end as a user would, with env over the test's environment (undefined removes a variable). */
export function runSvc(args: string[], env: Record<string, string | undefined>): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [SVC, ...args], { env: childEnv({ LOG_LEVEL: 'silent', ...env }), encoding: 'utf8' })
  return { status: run.status, stdout: run.stdout, stderr: run.stderr }
}
