/**
 * One worker's hold on one investigation while it runs (a LeasedRecord): claim, steps, usage and
 * the one outcome.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Orm } from '../../../shared/db/orm.js'
import { countInvestigationOutcome } from '../metrics.js'
import { setIssueStatus } from './grouper-issues.js'
import { queueFix } from './fix-queue.js'
import { LeasedJobRecord, leasedClaim, RunTakenOver, type ClaimOptions, type JobClaim } from '../../../shared/jobs/index.js'
import { Investigation, InvestigationCitation, InvestigationOutcome, InvestigationStep, OUTCOME_KINDS, type OutcomeKind, type OutsideCause } from './entities.js'

export { RunTakenOver }

export interface OutcomeRecord {
  kind: OutcomeKind
  reasonCode?: string
  reasonMessage?: string
  remediation?: string
  summary?: string
  chain?: string[]
  fix?: string
  cause?: OutsideCause
  confidence?: number
  citations?: Array<{ path: string; lineStart: number; lineEnd: number; quote: string }>
}

export type Claim = JobClaim<RunRecord>

export class RunRecord extends LeasedJobRecord<Investigation> {
  #seq = 0

  /** The investigation as this worker last wrote it. */
  get investigation(): Investigation {
    return this.row
  }

  /**
   * A run handed back to the queue (for the stream's next delivery of it, or with a lease of 0 for
   * the sweeper at once) takes its issue back to queued. The attempt stays counted (its steps and
   * tokens are kept under its number).
   */
  protected override requeued(tx: EntityManager, row: Investigation): Promise<void> {
    return setIssueStatus(tx, row.issueId, 'queued', '', '')
  }

  /** Notes where the run looks (repository and commit) and which model it asks. */
  setSubject(subject: { repo?: string; repoUrl?: string; commitSha?: string; model?: string; release?: string | null }): Promise<void> {
    return this.write((_, row) => {
      Object.assign(row, Object.fromEntries(Object.entries(subject).filter(([, v]) => v !== undefined)))
    })
  }

  /** Records a step and adds its usage to the run's totals. */
  step(step: { kind: InvestigationStep['kind']; name?: string; detail?: string; inputTokens?: number; outputTokens?: number; durationMs?: number }): Promise<void> {
    const seq = ++this.#seq
    return this.write((tx, row) => {
      tx.persist(Object.assign(new InvestigationStep(), { investigationId: row.id, attempt: row.attempts, seq, kind: step.kind, name: step.name ?? '', detail: (step.detail ?? '').slice(0, 500), inputTokens: step.inputTokens ?? 0, outputTokens: step.outputTokens ?? 0, durationMs: Math.round(step.durationMs ?? 0) }))
      if (step.kind === 'model') row.turns += 1
      row.inputTokens += step.inputTokens ?? 0
      row.outputTokens += step.outputTokens ?? 0
      row.leaseUntil = new Date(Date.now() + this.leaseMs)
    })
  }

  /** Ends the run with its one outcome; the issue takes the outcome's state and reason. */
  finish(outcome: OutcomeRecord, durationMs: number): Promise<void> {
    return this.write(async (tx, row) => {
      row.state = outcome.kind
      row.finishedAt = new Date()
      row.durationMs = Math.round(durationMs)
      tx.persist(Object.assign(new InvestigationOutcome(), {
        investigationId: row.id,
        kind: outcome.kind,
        reasonCode: outcome.reasonCode ?? '',
        reasonMessage: outcome.reasonMessage ?? '',
        remediation: outcome.remediation ?? '',
        summary: outcome.summary ?? '',
        chain: outcome.chain ?? [],
        fix: outcome.fix ?? '',
        cause: outcome.cause ?? null,
        confidence: outcome.confidence ?? null,
      }))
      for (const citation of outcome.citations ?? []) tx.persist(Object.assign(new InvestigationCitation(), { investigationId: row.id, ...citation }))
      await setIssueStatus(tx, row.issueId, outcome.kind, outcome.reasonCode ?? '', outcome.reasonMessage ?? '')
      // A cause in the user's code goes on to its fix in the same transaction: never left in investigated with nothing after it.
      if (outcome.kind === 'investigated') this.queuedFix = (await queueFix(tx, row, this.leaseMs))?.id
    }).then(() => countInvestigationOutcome(outcome))
  }

  /** The fix finish queued (to dispatch once committed), if any. */
  queuedFix: string | undefined
}

/** Claims an investigation for a run: analyzing, one more attempt (unless only to stop it), the lease starting now. */
export const claimRun: (orm: Orm, investigationId: string, leaseMs: number, options?: ClaimOptions<Investigation>) => Promise<Claim> = leasedClaim({
  entity: Investigation,
  finalStates: OUTCOME_KINDS,
  runningState: 'analyzing',
  record: RunRecord,
  claimed: (tx, investigation) => setIssueStatus(tx, investigation.issueId, 'analyzing', '', ''),
})
