/** The matcher's fleet-wide caps and the projects' daily check budget (docs/known-problems.md, "The matcher actor"). */
import { int, type Env } from './values.js'

/** Recording checks a project may run per UTC day unless FRICTION_PROJECT_DAILY_CHECKS says otherwise (spec, Limits: "2000 per project per UTC day by default"). */
export const DEFAULT_PROJECT_DAILY_CHECKS = 2000

export interface FrictionLimits {
  /** Scan and match jobs running at once across every worker; 0 pauses them (jobs stay pending). */
  readonly matchMaxConcurrent: number
  /** Confirm jobs running at once across every worker; 0 pauses them (jobs stay pending). */
  readonly confirmMaxConcurrent: number
  /** Recording checks one project may run per UTC day (FRICTION_PROJECT_DAILY_CHECKS); past it, batches wait for the next UTC day. */
  readonly projectDailyChecks: number
}

/** Reads FRICTION_MATCH_MAX_CONCURRENT, FRICTION_CONFIRM_MAX_CONCURRENT and FRICTION_PROJECT_DAILY_CHECKS. */
export function frictionConfig(env: Env): FrictionLimits {
  return {
    // Two: a scan reads a recording's chunks and a match waits on the environment's lock, so two
    // overlap one's I/O with the other's CPU on a 2-core machine without starving the grouper.
    matchMaxConcurrent: int(env, 'FRICTION_MATCH_MAX_CONCURRENT', 2, 0, 1000),
    // One: a confirmation reads ten recordings; they are rare (3 matches, then every 10 more).
    confirmMaxConcurrent: int(env, 'FRICTION_CONFIRM_MAX_CONCURRENT', 1, 0, 1000),
    // 0 checks nothing (nothing is published; batches wait a day at a time). A check reads one
    // recording's chunks: a million a day is more than a fleet reads, so more is a typo.
    projectDailyChecks: int(env, 'FRICTION_PROJECT_DAILY_CHECKS', DEFAULT_PROJECT_DAILY_CHECKS, 0, 1_000_000),
  }
}
