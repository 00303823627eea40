/** The matcher's fleet-wide caps (docs/known-problems.md, "The matcher actor"). */
import { int, type Env } from './config-values.js'

export interface FrictionLimits {
  /** Scan and match jobs running at once across every worker; 0 pauses them (jobs stay pending). */
  readonly matchMaxConcurrent: number
  /** Confirm jobs running at once across every worker; 0 pauses them (jobs stay pending). */
  readonly confirmMaxConcurrent: number
}

/** Reads FRICTION_MATCH_MAX_CONCURRENT and FRICTION_CONFIRM_MAX_CONCURRENT. */
export function frictionConfig(env: Env): FrictionLimits {
  return {
    // Two: a scan reads a recording's chunks and a match waits on the environment's lock, so two
    // overlap one's I/O with the other's CPU on a 2-core machine without starving the grouper.
    matchMaxConcurrent: int(env, 'FRICTION_MATCH_MAX_CONCURRENT', 2, 0, 1000),
    // One: a confirmation reads ten recordings; they are rare (3 matches, then every 10 more).
    confirmMaxConcurrent: int(env, 'FRICTION_CONFIRM_MAX_CONCURRENT', 1, 0, 1000),
  }
}
