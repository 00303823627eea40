/**
 * The pull request delivery rules (spec, "What the service does" 3), decided from executed evidence
 * only: an automatic run opens a draft; a run a person started may open ready for review, only with
 * E0, E1 and E2 executed and passed; a project that opted in may get a limited draft without E2 when E0
 * and E1 pass and the review approves; anything else stops with a reason. The review may veto; it
 * never overrides a failed check.
 */
import type { StopCode } from '../stops.js'
import type { Delivery, FixTrigger } from '../store/fix-entities.js'
import type { Evidence } from './evidence.js'

export type Decision = { kind: 'deliver'; delivery: Delivery } | { kind: 'stop'; code: StopCode; message: string }

export interface DecisionInput {
  trigger: FixTrigger
  limitedDrafts: boolean
  evidence: Evidence
  review: { approve: boolean; reason: string } | undefined
}

export function decideDelivery({ trigger, limitedDrafts, evidence, review }: DecisionInput): Decision {
  if (evidence.infra) return { kind: 'stop', code: 'sandbox_unavailable', message: `No evidence could be collected: ${evidence.infra}.` }
  if (!evidence.e0) return { kind: 'stop', code: 'verification_failed', message: 'The project does not build with the fix (E0 failed).' }
  if (!evidence.e1.met) {
    const names = evidence.e1.newFailures.slice(0, 5).join('; ')
    return { kind: 'stop', code: 'tests_failed', message: evidence.e1.newFailures.length > 0 ? `With the fix, ${evidence.e1.newFailures.length} test(s) fail that pass without it (E1): ${names}.` : `E1 could not be shown: ${evidence.e1.note ?? 'the suite did not run'}.` }
  }
  if (evidence.e2 === 'still_failing') return { kind: 'stop', code: 'verification_failed', message: 'The declared regression test still fails with the fix (E2 failed).' }
  if (!review?.approve) return { kind: 'stop', code: 'review_vetoed', message: `The independent review refused the diff: ${review?.reason ?? 'no verdict'}.` }
  if (evidence.e2 === 'verified') return { kind: 'deliver', delivery: trigger === 'manual' ? 'ready' : 'draft' }
  if (limitedDrafts) return { kind: 'deliver', delivery: 'limited_draft' }
  return {
    kind: 'stop',
    code: 'repro_not_achievable',
    message: evidence.e2 === 'not_reproduced' ? 'The declared test passes without the fix, so it does not reproduce the problem (E2 not met).' : 'No regression test was declared, so the fix is not verified (E2 not met).',
  }
}
