/**
 * Investigating a known problem (docs/known-problems.md, "Investigating a known problem"). The
 * publish gate leaves a published ticket, and its friction-kind issue, awaiting_approval: a person
 * presses Investigate on its page (the dashboard's route, through requestInvestigation as "Investigate
 * again" does), or the project's friction_auto_investigate sends it on at once, here, through the
 * same openInvestigation and dispatch as admission, so the fleet's caps and budgets apply alike.
 * From there the ticket's state follows its issue's status (store/grouper-issues.ts).
 */
import type { Redis } from 'ioredis'
import type { Queryable } from '../../shared/db.js'
import type { Orm } from '../../shared/orm.js'
import type { StreamKeys } from '../../shared/redis.js'
import { startInvestigation } from './dispatch.js'
import type { Investigation } from './store/entities.js'

export interface PublishedDeps {
  db: Queryable
  orm: Orm
  redis: Redis
  keys: StreamKeys
  /** How long the opened row may wait for a worker before the sweeper dispatches it again. */
  leaseMs: number
}

/**
 * Opens and dispatches the investigation of a published ticket that awaits approval when its
 * project investigates known problems without one; undefined otherwise (not published, not
 * awaiting, the project asks a person, or one in flight already). Asking again is harmless, so a
 * confirm job calls it after every batch: a worker that died between the gate's commit and this
 * call leaves the ticket awaiting_approval, and the ticket's next confirm job opens it.
 */
export async function investigatePublished(deps: PublishedDeps, ticketId: string): Promise<Investigation | undefined> {
  const { rows } = await deps.db.query<{ issue_id: string; project_id: string }>(
    `SELECT t.issue_id, t.project_id FROM tickets t JOIN projects p ON p.id = t.project_id
      WHERE t.id = $1 AND t.state = 'awaiting_approval' AND t.published_at IS NOT NULL AND t.unpublished_at IS NULL AND p.friction_auto_investigate`,
    [ticketId],
  )
  const ticket = rows[0]
  if (!ticket) return undefined
  return startInvestigation(deps.orm, deps.redis, deps.keys, { issueId: ticket.issue_id, projectId: ticket.project_id, trigger: 'auto', leaseMs: deps.leaseMs })
}
