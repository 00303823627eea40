/**
 * What other actors ask of the matcher (its commands) about its tickets, which it alone writes:
 * the investigator has a friction-kind issue's ticket follow the issue's status, a person answers
 * the publish gate's same-fix question (each in the caller's transaction, tx), and a published
 * known problem is handed to the investigator.
 *
 * The hand-over (docs/known-problems.md, "Investigating a known problem"): after each confirm job, a
 * ticket the gate left published and awaiting approval, in a project that investigates known
 * problems without a person (projects.friction_auto_investigate), is handed over as an entry of
 * stream:published-problems, { ticket: <id> }: one definition for the matcher that writes it and the
 * investigator that reads it, through its consumer group, so an entry waits while no investigator
 * runs. When it takes the entry the investigator asks here again whether the ticket still waits,
 * since a person, or the gate, may have moved it in between.
 */
import type { Redis } from 'ioredis'
import type { Queryable } from '../../shared/db/index.js'
import { jobStream } from '../../shared/jobs/index.js'
import type { StreamKeys } from '../../shared/redis.js'
import { runSql, type SqlTx } from '../../shared/db/sql-tx.js'

/** The states a ticket takes from its issue (tickets.state's check less candidate, awaiting_approval and archived, which are not the investigator's). */
const MIRRORED = ['queued', 'analyzing', 'insight', 'needs_human', 'investigated', 'fixing', 'pr_draft', 'pr_created']

/**
 * The tickets of friction-kind issues whose status just moved (in tx) take that status as their
 * state (docs/known-problems.md, "Investigating a known problem"); an archived ticket stays
 * archived. Issues of other kinds have no ticket and cost nothing.
 */
export async function followIssueStatus(tx: SqlTx, moved: ReadonlyArray<{ id: string; kind: string; status: string }>): Promise<void> {
  const friction = moved.filter((issue) => issue.kind === 'friction' && MIRRORED.includes(issue.status))
  if (friction.length === 0) return
  await runSql(
    tx,
    `UPDATE tickets t SET state = m.status, updated_at = now(), version = t.version + 1
       FROM jsonb_to_recordset(?::jsonb) AS m(id uuid, status text)
      WHERE t.issue_id = m.id AND t.state <> 'archived' AND t.state <> m.status`,
    [JSON.stringify(friction.map(({ id, status }) => ({ id, status })))],
  )
}

/** A person's answer to the same-fix question. */
export type SameFixAnswer = 'same' | 'different'

/**
 * Records a person's answer to the publish gate's same-fix question on ticketId of projectId.
 * Only a question that was asked can be answered, and the other problem must still be there to
 * answer about: false when none is open.
 */
export async function answerSameFix(tx: SqlTx, projectId: string, ticketId: string, answer: SameFixAnswer): Promise<boolean> {
  const rows = await runSql(
    tx,
    `UPDATE tickets SET same_fix = ?, updated_at = now(), version = version + 1
      WHERE id = ? AND project_id = ? AND same_fix IS NOT NULL AND same_fix_ticket_id IS NOT NULL
     RETURNING id`,
    [answer, ticketId, projectId],
  )
  return rows.length > 0
}


/** An entry of stream:published-problems: { ticket: <id> }. */
export const PUBLISHED_PROBLEM = jobStream('ticket')

/** A published ticket that waits for its investigation: its friction-kind issue and its project. */
export interface AwaitingInvestigation {
  issueId: string
  projectId: string
}

/**
 * The ticket's issue and project when it is published (and not unpublished), awaiting approval, in a
 * project that investigates known problems at once; undefined otherwise.
 */
export async function awaitingInvestigation(db: Queryable, ticketId: string): Promise<AwaitingInvestigation | undefined> {
  const { rows } = await db.query<{ issue_id: string; project_id: string }>(
    `SELECT t.issue_id, t.project_id FROM tickets t JOIN projects p ON p.id = t.project_id JOIN issues i ON i.id = t.issue_id AND i.triage = 'open'
      WHERE t.id = $1 AND t.state = 'awaiting_approval' AND t.published_at IS NOT NULL AND t.unpublished_at IS NULL AND p.friction_auto_investigate`,
    [ticketId],
  )
  const ticket = rows[0]
  return ticket ? { issueId: ticket.issue_id, projectId: ticket.project_id } : undefined
}

/**
 * Hands the ticket to the investigator when it waits for its investigation; answers whether it did.
 * Asking again is harmless (the investigator opens one investigation in flight at most), so a
 * confirm job asks after every batch: a worker that died between the gate's commit and this call
 * leaves the ticket awaiting approval, and the ticket's next confirm job hands it over.
 */
export async function handOverPublished(deps: { db: Queryable; redis: Redis; keys: StreamKeys }, ticketId: string): Promise<boolean> {
  if (!(await awaitingInvestigation(deps.db, ticketId))) return false
  await PUBLISHED_PROBLEM.dispatch(deps.redis, deps.keys.publishedProblems, ticketId)
  return true
}
