/** The digester's settings (docs/digest.md). */
import { int, type Env } from './values.js'
import { MINUTE, SECOND } from '../time.js'

export interface DigestSettings {
  /** Digest steps running at once across every worker; 0 pauses the digest (rows wait, nothing lost). */
  readonly maxConcurrent: number
  /** How long after writing a digest its check runs (spec: normally a ten-minute window). */
  readonly checkDelayMs: number
  /** How often the fleet's sweep looks for due projects and due steps. */
  readonly sweepMs: number
}

/** Reads DIGEST_MAX_CONCURRENT, DIGEST_CHECK_MINUTES and DIGEST_SWEEP_SECONDS. */
export function digestConfig(env: Env): DigestSettings {
  return {
    // Four: a step is a few short queries, a model turn and a chat post, mostly waiting; at the 09:00
    // peak of a zone with many projects, four at once drain the queue faster than two on 2 cores.
    maxConcurrent: int(env, 'DIGEST_MAX_CONCURRENT', 4, 0, 1000),
    checkDelayMs: int(env, 'DIGEST_CHECK_MINUTES', 10, 0, 120) * MINUTE,
    // Half a minute: "around 09:00" is met to within the sweep, and a pass reads only due rows.
    sweepMs: int(env, 'DIGEST_SWEEP_SECONDS', 30, 1, 3600) * SECOND,
  }
}
