/**
 * The matcher's metrics (docs/metrics.md), declared in one place: how its jobs end, by kind, and
 * what matching decided. The stream runtime already times each job's run as a batch of stream:friction.
 */
import { Counter } from '../../shared/metrics.js'

const jobs = new Counter({ name: 'svc_friction_jobs_finished_total', help: 'Matcher jobs that ended, by kind (scan, match, confirm) and state (completed, failed).', labelNames: ['kind', 'state'] })
const decisions = new Counter({ name: 'svc_matching_decisions_total', help: 'Matching decisions taken, by decision (joined, created, not_a_problem); a finding decided already is not counted again.', labelNames: ['decision'] })

// Every value a label can take starts at 0, so the first of each shows in increase().
for (const kind of ['scan', 'match', 'confirm']) for (const state of ['completed', 'failed']) jobs.inc({ kind, state }, 0)
for (const decision of ['joined', 'created', 'not_a_problem']) decisions.inc({ decision }, 0)

/** Counts a job's end, once it is committed. */
export function countJobEnd(kind: string, state: 'completed' | 'failed'): void {
  jobs.inc({ kind, state })
}

/** Counts a matching decision this worker took. */
export function countDecision(decision: string): void {
  decisions.inc({ decision })
}
