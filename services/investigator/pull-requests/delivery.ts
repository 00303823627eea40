/**
 * A code-host webhook delivery of a closed pull request (verified by the web side), taken in one
 * transaction: the repository must be a project's, the delivery id new (recorded, so a replay is
 * refused), and the fix of that pull request number, when the service delivered one, ends as the
 * payload says (end.ts). A refused delivery writes nothing.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Orm } from '../../../shared/db/orm.js'
import { Fix } from '../store/fix-entities.js'
import { applyPullRequestSeen, type SeenOutcome } from './end.js'
import { applyLinkedSeen, linkedRowsOf } from './linked.js'

/** What the web side read from a verified pull_request closed delivery. */
export interface ClosedPullRequestDelivery {
  /** X-GitHub-Delivery. */
  deliveryId: string
  event: string
  action: string
  /** repository.full_name. */
  repo: string
  number: number
  merged: boolean
  mergedAt: Date | null
  closedAt: Date | null
  mergeSha: string
}

/** replayed: the delivery id was taken before; repository_unknown: no project is attached to it; repository_mismatch: the fix of that number is of another repository. */
export type DeliveryRefusal = 'replayed' | 'repository_unknown' | 'repository_mismatch'

export type DeliveryOutcome = { taken: true; fixId: string | null; outcome: SeenOutcome } | { taken: false; refusal: DeliveryRefusal }

/** Takes one verified closed pull request delivery; refused ones change nothing. */
export async function takeClosedPullRequest(orm: Orm, delivery: ClosedPullRequestDelivery): Promise<DeliveryOutcome> {
  const em = orm.em.fork() as EntityManager
  return em.transactional(async (tx) => {
    const projects = await tx.execute<Array<{ id: string }>>(`SELECT id FROM projects WHERE codehost_repo <> '' AND lower(codehost_repo) = lower(?)`, [delivery.repo])
    if (projects.length === 0) return refused('repository_unknown')
    const fixes = await tx.find(Fix, { projectId: { $in: projects.map((p) => p.id) }, prNumber: delivery.number }, { orderBy: { createdAt: 'desc' } })
    if (fixes.some((fix) => fix.repo !== '' && fix.repo.toLowerCase() !== delivery.repo.toLowerCase())) return refused('repository_mismatch')
    const recorded = await tx.execute<Array<{ delivery_id: string }>>(
      `INSERT INTO codehost_webhook_deliveries (delivery_id, event, action, repo) VALUES (?, ?, ?, ?) ON CONFLICT (delivery_id) DO NOTHING RETURNING delivery_id`,
      [delivery.deliveryId, delivery.event, delivery.action, delivery.repo],
    )
    if (recorded.length === 0) return refused('replayed')
    const seen = { state: delivery.merged ? 'merged' : 'closed', mergedAt: delivery.mergedAt, closedAt: delivery.closedAt, mergeSha: delivery.mergeSha } as const
    const fix = fixes[0]
    if (!fix) {
      // Not the service's: an agent's linked pull request is followed (linked.ts); a person's is acknowledged, nothing to follow.
      let outcome: SeenOutcome = 'unchanged'
      for (const id of await linkedRowsOf(tx, projects.map((p) => p.id), delivery.repo, delivery.number)) outcome = await applyLinkedSeen(tx, id, seen)
      return { taken: true, fixId: null, outcome }
    }
    return { taken: true, fixId: fix.id, outcome: await applyPullRequestSeen(tx, fix.id, seen) }
  })
}

function refused(refusal: DeliveryRefusal): DeliveryOutcome {
  return { taken: false, refusal }
}
