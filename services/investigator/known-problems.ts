/**
 * Investigating a known problem (docs/known-problems.md, "Investigating a known problem"). The
 * publish gate leaves a published ticket, and its friction-kind issue, awaiting_approval: a person
 * presses Investigate on its page (the dashboard's route, through requestInvestigation as "Investigate
 * again" does), or, where the project's friction_auto_investigate says so, the matcher hands it over
 * on stream:published-problems and it is opened here, through the same openInvestigation and
 * dispatch as admission, so the fleet's caps and budgets apply alike. From there the ticket's state
 * follows its issue's status (store/grouper-issues.ts).
 */
import type { Redis } from 'ioredis'
import type { Queryable } from '../../shared/db/index.js'
import type { StreamedKind } from '../../shared/jobs/index.js'
import type { Orm } from '../../shared/db/orm.js'
import type { StreamKeys } from '../../shared/redis.js'
import { awaitingInvestigation, PUBLISHED_PROBLEM } from '../matcher/commands.js'
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
 * Opens and dispatches the investigation of a published ticket that still awaits approval in a
 * project that investigates known problems without one (the matcher answers, commands.ts);
 * undefined otherwise (not published, not awaiting, the project asks a person, or one in flight
 * already). Asking again is harmless, so an entry delivered twice opens one investigation.
 */
export async function investigatePublished(deps: PublishedDeps, ticketId: string): Promise<Investigation | undefined> {
  const ticket = await awaitingInvestigation(deps.db, ticketId)
  if (!ticket) return undefined
  return startInvestigation(deps.orm, deps.redis, deps.keys, { issueId: ticket.issueId, projectId: ticket.projectId, trigger: 'auto', leaseMs: deps.leaseMs })
}

/** The entries of stream:published-problems, for the job kit's consumer: each opens its ticket's investigation. */
export function publishedProblems(deps: PublishedDeps): StreamedKind {
  return {
    entry: PUBLISHED_PROBLEM,
    run: async ({ id }) => void (await investigatePublished(deps, id)),
  }
}
