/** The alerter's settings (docs/alerts.md). */
import { int, type Env } from './values.js'
import { MINUTE, SECOND } from '../time.js'

export interface AlertSettings {
  /** Chat posts running at once across every worker; 0 pauses delivery (firings and deliveries wait, nothing lost). */
  readonly maxConcurrent: number
  /** How long a new delivery gathers the project's firings before it is sent (the fold). */
  readonly gatherMs: number
  /** The first wait after a chat outage; each failed post doubles it up to retryCapMs. */
  readonly retryBaseMs: number
  readonly retryCapMs: number
  /** How long after its first post a delivery keeps trying through an outage before it is marked failed. */
  readonly giveUpMs: number
  /** How often the fleet's sweep dispatches due retries and lapsed deliveries. */
  readonly sweepMs: number
}

/** Reads ALERT_MAX_CONCURRENT, ALERT_GATHER_SECONDS, ALERT_RETRY_BASE_SECONDS, ALERT_RETRY_CAP_MINUTES, ALERT_GIVE_UP_MINUTES and ALERT_SWEEP_SECONDS. */
export function alertConfig(env: Env): AlertSettings {
  return {
    maxConcurrent: int(env, 'ALERT_MAX_CONCURRENT', 4, 0, 1000),
    // Two seconds: the issues one deploy breaks arrive within a few batches; waiting longer only delays the first alert.
    gatherMs: int(env, 'ALERT_GATHER_SECONDS', 2, 0, 300) * SECOND,
    retryBaseMs: int(env, 'ALERT_RETRY_BASE_SECONDS', 10, 1, 3600) * SECOND,
    retryCapMs: int(env, 'ALERT_RETRY_CAP_MINUTES', 10, 1, 1440) * MINUTE,
    // Six hours: an alert older than a working morning is news the digest tells better.
    giveUpMs: int(env, 'ALERT_GIVE_UP_MINUTES', 360, 1, 7 * 1440) * MINUTE,
    sweepMs: int(env, 'ALERT_SWEEP_SECONDS', 5, 1, 3600) * SECOND,
  }
}
