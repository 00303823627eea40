/**
 * The fix side of an issue as people and agents see it (the issue page, the project API, the tool
 * server). Asking for one is a command: services/investigator/commands.ts.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Orm } from '../../../shared/db/orm.js'
import { Fix, FixEvidence } from '../store/fix-entities.js'

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
