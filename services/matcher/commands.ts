/**
 * The matcher's hand-over of a published known problem to the investigator (docs/known-problems.md,
 * "Investigating a known problem"). After each confirm job, a ticket the gate left published and
 * awaiting approval, in a project that investigates known problems without a person
 * (projects.friction_auto_investigate), is handed over as an entry of stream:published-problems,
 * { ticket: <id> }: one definition for the matcher that writes it and the investigator that reads
 * it, through its consumer group, so an entry waits while no investigator runs. When it takes the
 * entry the investigator asks here again whether the ticket still waits, since a person, or the
 * gate, may have moved it in between.
 */
import type { Redis } from 'ioredis'
import type { Queryable } from '../../shared/db.js'
import { jobStream } from '../../shared/jobs/index.js'
import type { StreamKeys } from '../../shared/redis.js'

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
    `SELECT t.issue_id, t.project_id FROM tickets t JOIN projects p ON p.id = t.project_id
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
