/**
 * The fix side of an issue as people and agents see it (the issue page, the project API), and a
 * person's "Fix this". A fix a person starts may open ready for review (delivery rules).
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Redis } from 'ioredis'
import type { Orm } from '../../../shared/orm.js'
import type { StreamKeys } from '../../../shared/redis.js'
import { dispatchFix, startInvestigation } from '../dispatch.js'
import { latestInvestigation } from '../store/admissions.js'
import { setIssueStatus } from '../store/grouper-issues.js'
import { Fix, FixEvidence } from '../store/fix-entities.js'
import { queueFix } from '../store/fix-queue.js'

export interface FixView {
  id: string
  state: string
  trigger: string
  attempts: number
  createdAt: string
  finishedAt: string | null
  branch: string
  summary: string
  testFile: string
  review: { verdict: string; reason: string } | null
  pullRequest: { number: number; url: string; delivery: string; draft: boolean; headSha: string } | null
  /** Repository CI on the pull request's head, as last read back: none, pending, success, failure ('' before the first read). */
  ci: { state: string; checkedAt: string | null }
  stop: { reasonCode: string; reasonMessage: string; remediation: string } | null
  usage: { turns: number; inputTokens: number; outputTokens: number; durationMs: number }
  /** The executed checks of the latest attempt, in order. */
  evidence: Array<{ tier: string; phase: string; command: string; exitCode: number | null; timedOut: boolean; met: boolean; infraError: string; excerpt: string }>
}

/** The issue's latest fix; undefined when it never had one. */
export async function readFix(orm: Orm, issueId: string): Promise<FixView | undefined> {
  const em = orm.em.fork() as EntityManager
  const fix = await em.findOne(Fix, { issueId }, { orderBy: { createdAt: 'desc' } })
  if (!fix) return undefined
  const evidence = await em.find(FixEvidence, { fixId: fix.id, attempt: fix.attempts }, { orderBy: { seq: 'asc' } })
  return {
    id: fix.id,
    state: fix.state,
    trigger: fix.trigger,
    attempts: fix.attempts,
    createdAt: fix.createdAt.toISOString(),
    finishedAt: fix.finishedAt?.toISOString() ?? null,
    branch: fix.branch,
    summary: fix.summary,
    testFile: fix.testFile,
    review: fix.review ? { verdict: fix.review, reason: fix.reviewReason } : null,
    pullRequest: fix.prNumber === null ? null : { number: fix.prNumber, url: fix.prUrl, delivery: fix.delivery, draft: fix.delivery !== 'ready', headSha: fix.headSha },
    ci: { state: fix.ciState, checkedAt: fix.ciCheckedAt?.toISOString() ?? null },
    stop: fix.state === 'needs_human' ? { reasonCode: fix.reasonCode, reasonMessage: fix.reasonMessage, remediation: fix.remediation } : null,
    usage: { turns: fix.turns, inputTokens: fix.inputTokens, outputTokens: fix.outputTokens, durationMs: fix.durationMs },
    evidence: evidence.map((e) => ({ tier: e.tier, phase: e.phase, command: e.command, exitCode: e.exitCode, timedOut: e.timedOut, met: e.met, infraError: e.infraError, excerpt: e.excerpt })),
  }
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
