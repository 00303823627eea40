/** Following a fix pull request to its end (docs/fixes.md, "Following a pull request to its end"). */
import { int, type Env } from './values.js'
import { SECOND } from '../time.js'

/** The investigator's poller of delivered pull requests, for code hosts that cannot reach the service's webhook. */
export interface PullRequestPolling {
  /** A pull request is read again once this long has passed since its last read; 0 turns the poller off. */
  readonly everyMs: number
  /** Pull requests read in one pass of the investigator's sweep (oldest read first). */
  readonly perPass: number
}

/** Reads PULL_REQUEST_POLL_SECONDS and PULL_REQUEST_POLL_PER_PASS. */
export function pullRequestPolling(env: Env): PullRequestPolling {
  return {
    // Five minutes: a merge shows within minutes without the webhook, and an open pull request costs
    // one API call per interval (GitHub allows 5000 an hour per installation).
    everyMs: int(env, 'PULL_REQUEST_POLL_SECONDS', 300, 0, 7 * 24 * 60 * 60) * SECOND,
    // Twenty: the sweep runs every half lease (30 s), so a pass stays a few seconds of API calls.
    perPass: int(env, 'PULL_REQUEST_POLL_PER_PASS', 20, 1, 1000),
  }
}
