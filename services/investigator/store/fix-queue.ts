/**
 * Opening fixes: one in flight per issue (the partial unique index says so). A fix follows every
 * investigation that found the cause in the user's code, in the investigation's own transaction, and
 * a person can ask for one ("Fix this"). A fix a person started may open ready for review.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Investigation } from './entities.js'
import { FIX_ACTIVE_STATES, Fix, type FixTrigger } from './fix-entities.js'

/** Queues the fix of an investigated investigation in tx; undefined when a fix of the issue is in flight. */
export async function queueFix(tx: EntityManager, investigation: Investigation, leaseMs: number, request: { trigger?: FixTrigger; requestedBy?: string | null } = {}): Promise<Fix | undefined> {
  if ((await tx.count(Fix, { issueId: investigation.issueId, state: { $in: [...FIX_ACTIVE_STATES] } })) > 0) return undefined
  const fix = Object.assign(new Fix(), {
    investigationId: investigation.id,
    issueId: investigation.issueId,
    projectId: investigation.projectId,
    // An investigation a person (or an agent) asked for leads to a fix a person (an agent) started.
    trigger: request.trigger ?? (investigation.trigger === 'manual' || investigation.trigger === 'agent' ? investigation.trigger : 'auto'),
    requestedBy: request.requestedBy ?? investigation.requestedBy,
    repo: investigation.repo,
    baseSha: investigation.commitSha,
    leaseUntil: new Date(Date.now() + leaseMs),
  })
  tx.persist(fix)
  return fix
}
