/**
 * A fix whose pull request the service delivered, seeded by hand for the tests that follow it to its
 * end (the webhook and the poller): the project attached to its repository, an issue in pr_created
 * after an investigated episode, and the fix row as delivery leaves it.
 */
import type { Db } from '../../../shared/db/index.js'
import { seededByHand } from '../suite-invariants.js'

export const HEAD_SHA = '3f2c1b0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b'

/** What a delivered fix's tests look at. */
export interface DeliveredFix {
  issueId: string
  fixId: string
}

/** Seeds a delivered fix of pull request number in repo, in projectId (attached to repo). */
export async function seedDeliveredFix(db: Db, projectId: string, repo: string, number: number, options: { fixRepo?: string } = {}): Promise<DeliveredFix> {
  await seededByHand(db)
  await db.query('UPDATE projects SET codehost_repo = $2 WHERE id = $1', [projectId, repo])
  const { rows: issues } = await db.query<{ id: string }>(
    `INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, culprit, first_seen, last_seen, event_count, user_count, session_count)
     VALUES ($1, 'error', gen_random_uuid()::text, 3, 'pr_created', 'Error: Cart <n> has no items', 'totalOf (src/cart.ts:6)', now(), now(), 12, 3, 4) RETURNING id`,
    [projectId],
  )
  const issueId = issues[0]!.id
  const { rows: investigations } = await db.query<{ id: string }>(
    `INSERT INTO investigations (issue_id, project_id, episode, trigger, state, attempts, lease_until, repo, repo_url, commit_sha, finished_at, created_at)
     VALUES ($1, $2, 1, 'auto', 'investigated', 1, now(), $3, 'https://github.com/' || $3, $4, now(), now() - interval '1 hour') RETURNING id`,
    [issueId, projectId, repo, HEAD_SHA],
  )
  await db.query(`INSERT INTO investigation_outcomes (investigation_id, kind, summary) VALUES ($1, 'investigated', 'checkout() totals a cart never loaded.')`, [investigations[0]!.id])
  const { rows: fixes } = await db.query<{ id: string }>(
    `INSERT INTO fixes (investigation_id, issue_id, project_id, trigger, state, attempts, lease_until, repo, branch, delivery, pr_number, pr_url, head_sha, ci_state, review, summary, finished_at)
     VALUES ($1, $2, $3, 'manual', 'pr_created', 1, now(), $4, 'svc/fix-1', 'ready', $5::int, 'https://github.com/' || $4 || '/pull/' || $5::int, $6, 'none', 'approved', 'Load the cart first.', now()) RETURNING id`,
    [investigations[0]!.id, issueId, projectId, options.fixRepo ?? repo, number, HEAD_SHA],
  )
  return { issueId, fixId: fixes[0]!.id }
}

/** The fix's row and its issue's status and triage, and the issue's history, as one comparable value. */
export async function followedState(db: Db, delivered: DeliveredFix) {
  const { rows: fix } = await db.query<Record<string, unknown>>(
    'SELECT state, pr_state, pr_merged_at, pr_closed_at, pr_merge_sha, pr_checked_at, version FROM fixes WHERE id = $1',
    [delivered.fixId],
  )
  const { rows: issue } = await db.query<Record<string, unknown>>('SELECT status, reason_code, triage, resolved_mode, resolved_at FROM issues WHERE id = $1', [delivered.issueId])
  const { rows: history } = await db.query<Record<string, unknown>>(
    'SELECT actor_kind, actor_id, actor_label, action, from_state, to_state, reason, detail FROM issue_history WHERE issue_id = $1 ORDER BY id',
    [delivered.issueId],
  )
  const { rows: deliveries } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM codehost_webhook_deliveries')
  return { fix: fix[0]!, issue: issue[0]!, history, deliveries: deliveries[0]!.n }
}
