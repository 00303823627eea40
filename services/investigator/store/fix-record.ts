/**
 * One worker's hold on one fix while it builds it (a LeasedRecord): the claim, usage, each executed
 * check (fix_evidence), and the one end: a delivered pull request or a stop. The issue's status moves
 * in the same transactions: fixing on the claim, the fix's end state on the finish.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Orm } from '../../../shared/db/orm.js'
import type { CommandResult } from '../../../shared/plugins/sandbox-types.js'
import { countFixEnd, countSandboxCommand } from '../metrics.js'
import { setIssueStatus } from './grouper-issues.js'
import { Fix, FIX_FINAL_STATES, FixEvidence, type Delivery, type EvidenceTier } from './fix-entities.js'
import { LeasedJobRecord, leasedClaim, RunTakenOver, type ClaimOptions, type JobClaim } from '../../../shared/jobs/index.js'

export { RunTakenOver }

export type FixClaim = JobClaim<FixRecord>

/** How a fix ended: a pull request, or a stop with its reason. */
export type FixEnd =
  | { kind: 'delivered'; delivery: Delivery; prNumber: number; prUrl: string; headSha: string; prReady: boolean }
  | { kind: 'stopped'; reasonCode: string; reasonMessage: string; remediation: string }

export class FixRecord extends LeasedJobRecord<Fix> {
  #seq = 0
  /** The checks this attempt executed, in order (for the pull request's description). */
  readonly checks: FixEvidence[] = []

  get fix(): Fix {
    return this.row
  }

  /** Model usage: each turn adds to the fix's totals and pushes the lease (the conversation's record). */
  step(step: { kind: 'model' | 'tool'; inputTokens?: number; outputTokens?: number }): Promise<void> {
    return this.write((_, row) => {
      if (step.kind === 'model') row.turns += 1
      row.inputTokens += step.inputTokens ?? 0
      row.outputTokens += step.outputTokens ?? 0
      row.leaseUntil = new Date(Date.now() + this.leaseMs)
    })
  }

  /** Notes facts of the fix as they become known (repository, base commit, branch, test, diff, review). */
  set(facts: Partial<Pick<Fix, 'repo' | 'baseSha' | 'branch' | 'testFile' | 'summary' | 'diff' | 'review' | 'reviewReason' | 'model' | 'headSha'>>): Promise<void> {
    return this.write((_, row) => {
      Object.assign(row, facts)
    })
  }

  /** Records one executed check; met says whether its expectation held (never with an infrastructure error). */
  evidence(check: { tier: EvidenceTier; phase: 'baseline' | 'fix'; command: string; result: CommandResult; met: boolean }): Promise<void> {
    const seq = ++this.#seq
    const { result } = check
    countSandboxCommand(check)
    return this.write((tx, row) => {
      const executed = Object.assign(new FixEvidence(), {
          fixId: row.id,
          attempt: row.attempts,
          seq,
          tier: check.tier,
          phase: check.phase,
          command: check.command.slice(0, 500),
          exitCode: result.exitCode,
          timedOut: result.timedOut,
          outputCapped: result.outputCapped,
          infraError: (result.infraError ?? '').slice(0, 500),
          met: check.met && !result.infraError,
          excerpt: excerpt(result.output),
          durationMs: Math.round(result.durationMs),
        })
      tx.persist(executed)
      this.checks.push(executed)
      row.leaseUntil = new Date(Date.now() + this.leaseMs)
    })
  }

  /** A fix handed back to the queue (an outage the stream retries, or a stopping worker: lease 0) takes its issue back to investigated. */
  protected override requeued(tx: EntityManager, row: Fix): Promise<void> {
    return setIssueStatus(tx, row.issueId, 'investigated', '', '')
  }

  /** Ends the fix: pr_draft or pr_created with its pull request, or needs_human with the reason. */
  finish(end: FixEnd, durationMs: number): Promise<void> {
    return this.write(async (tx, row) => {
      row.finishedAt = new Date()
      row.durationMs = Math.round(durationMs)
      if (end.kind === 'delivered') {
        Object.assign(row, { state: end.delivery === 'ready' ? 'pr_created' : 'pr_draft', delivery: end.delivery, prNumber: end.prNumber, prUrl: end.prUrl, headSha: end.headSha, prReady: end.prReady })
        await setIssueStatus(tx, row.issueId, row.state, '', '')
      } else {
        Object.assign(row, { state: 'needs_human', reasonCode: end.reasonCode, reasonMessage: end.reasonMessage, remediation: end.remediation })
        await setIssueStatus(tx, row.issueId, 'needs_human', end.reasonCode, end.reasonMessage)
      }
    }).then(() => countFixEnd(end))
  }
}

/** Claims a fix: fixing, one more attempt (unless only to stop it), the lease starting now. */
export const claimFix: (orm: Orm, fixId: string, leaseMs: number, options?: ClaimOptions<Fix>) => Promise<FixClaim> = leasedClaim({
  entity: Fix,
  finalStates: FIX_FINAL_STATES,
  runningState: 'fixing',
  record: FixRecord,
  claimed: (tx, fix) => setIssueStatus(tx, fix.issueId, 'fixing', '', ''),
})

/** The tail of a command's output, where the failures are; capped for the record. */
function excerpt(output: string): string {
  return output.length <= 4000 ? output : `…${output.slice(-3999)}`
}
