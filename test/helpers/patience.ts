/**
 * How long a test waits for something to happen before it calls it never coming: one figure for
 * every wait of the suite (waitFor, the harnesses' settle helpers, hand-rolled polls, browser
 * locators). A wait follows its condition and returns the moment it holds; this is only where it
 * gives up. The figures written at call sites are what the condition usually takes on an idle
 * machine, and a 2-core machine at a load average of 10 makes those several times longer, so a
 * wait never gives up before PATIENCE_MS. It stays well under tap's per-file timeout (120 s,
 * package.json), so a condition that never comes fails with its own message, not tap's.
 * SVC_TEST_PATIENCE_MS changes it on a slower machine, with tap's --timeout for the files.
 */

const DEFAULT_PATIENCE_MS = 60_000

function fromEnvironment(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_PATIENCE_MS
  const ms = Number(value)
  if (!Number.isInteger(ms) || ms <= 0) throw new Error(`SVC_TEST_PATIENCE_MS must be a whole number of milliseconds above 0, not "${value}"`)
  return ms
}

/** The least time any wait of the suite gives its condition before failing. */
export const PATIENCE_MS = fromEnvironment(process.env.SVC_TEST_PATIENCE_MS)

/** The time to give a condition that usually needs usualMs: usualMs, or PATIENCE_MS when that is longer. */
export function patience(usualMs = 0): number {
  return Math.max(usualMs, PATIENCE_MS)
}
