/** "Held in production" (docs/fixes.md, "Held in production"): when a merged fix is judged. */
import { int, type Env } from './values.js'

/** What the investigator's sweep needs to judge a merged fix. */
export interface FixHeldSettings {
  /** Distinct sessions the first release after the merge must have been seen in before a verdict. */
  readonly minSessions: number
  /** Merged fixes looked at in one pass of the sweep (least recently looked at first). */
  readonly perPass: number
}

/** Reads FIX_HELD_MIN_SESSIONS. */
export function fixHeldConfig(env: Env): FixHeldSettings {
  return {
    // A hundred sessions: a handful could all miss the broken path; a hundred rarely all do.
    minSessions: int(env, 'FIX_HELD_MIN_SESSIONS', 100, 1, 10_000_000),
    // Fifty: each is a few indexed counts, so a pass stays well under the sweep's interval.
    perPass: 50,
  }
}
