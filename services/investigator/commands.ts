/**
 * What people and agents ask of the investigator (its commands): another investigation of an
 * issue, and "Fix this"; and what the code host's webhook tells it, a fix pull request closed
 * (pull-requests/delivery.ts). All write only the investigator's own rows (the issue's status and
 * triage through the grouper's commands); the first two dispatch after the commit.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Redis } from 'ioredis'
import type { Orm } from '../../shared/db/orm.js'
import type { StreamKeys } from '../../shared/redis.js'
import { dispatchFix, startInvestigation } from './dispatch.js'
import { latestInvestigation } from './store/admissions.js'
import { setIssueStatus } from './store/grouper-issues.js'
import { queueFix } from './store/fix-queue.js'
import type { Fix } from './store/fix-entities.js'

export { takeClosedPullRequest, type ClosedPullRequestDelivery, type DeliveryOutcome, type DeliveryRefusal } from './pull-requests/delivery.js'

/** A person asks for another investigation: started, or refused while one is in flight. */
export async function requestInvestigation(orm: Orm, redis: Redis, keys: StreamKeys, request: { issueId: string; projectId: string; userId: string; leaseMs: number }): Promise<'started' | 'in_flight'> {
  const started = await startInvestigation(orm, redis, keys, { issueId: request.issueId, projectId: request.projectId, trigger: 'manual', requestedBy: request.userId, leaseMs: request.leaseMs })
  return started ? 'started' : 'in_flight'
}

export type FixRequestResult = 'fix_started' | 'investigation_started' | 'in_flight'

/** Who asks for a fix: a person (may open ready for review) or a coding agent over the tool server (drafts only: not a person's approval). */
export type FixRequester = { trigger: 'manual'; userId: string } | { trigger: 'agent'; userId: null }

/**
 * A person presses "Fix this": with a root cause already found, a fix starts at once (started by a
 * person: it may open ready for review); without one, an investigation starts, and the fix that
 * follows it is a person's too. Refused while an investigation or a fix of the issue is in flight.
 * An agent's request runs the same way with the trigger agent, whose pull request opens as a draft.
 */
export async function requestFix(orm: Orm, redis: Redis, keys: StreamKeys, request: { issueId: string; projectId: string; leaseMs: number } & FixRequester): Promise<FixRequestResult> {
  const em = orm.em.fork() as EntityManager
  const latest = await latestInvestigation(em, request.issueId)
  if (latest && ['queued', 'analyzing'].includes(latest.investigation.state)) return 'in_flight'
  if (latest?.outcome?.kind === 'investigated') {
    let fix: Fix | undefined
    try {
      fix = await em.transactional(async (tx) => {
        const queued = await queueFix(tx, latest.investigation, request.leaseMs, { trigger: request.trigger, requestedBy: request.userId })
        if (queued) await setIssueStatus(tx, request.issueId, 'investigated', '', '')
        return queued
      })
    } catch (error) {
      // Two presses at once: the partial unique index lets one fix in flight.
      if (error instanceof UniqueConstraintViolationException) return 'in_flight'
      throw error
    }
    if (!fix) return 'in_flight'
    await dispatchFix(redis, keys, fix.id)
    return 'fix_started'
  }
  const started = await startInvestigation(orm, redis, keys, { issueId: request.issueId, projectId: request.projectId, trigger: request.trigger, requestedBy: request.userId ?? undefined, leaseMs: request.leaseMs })
  return started ? 'investigation_started' : 'in_flight'
}
