/**
 * Which consumer groups read which stream. Groups are created when a producer starts, so entries
 * wait for a group whose workers are not up yet, and trimming knows every reader.
 */
import type { StreamKeys } from './redis.js'

export const GROUPS = Object.freeze({
  grouper: 'grouper',
  /** Admission: reads the issue-change notes. */
  admission: 'investigator-admission',
  investigator: 'investigator',
  /** Fixes: builds them in a sandbox and delivers their pull requests. */
  fixer: 'fixer',
})

/** Each stream with the groups that must see every entry of it. */
export function streamTopology(keys: StreamKeys): ReadonlyArray<{ stream: string; groups: readonly string[] }> {
  return [
    { stream: keys.events, groups: [GROUPS.grouper] },
    { stream: keys.issueChanges, groups: [GROUPS.admission] },
    { stream: keys.investigations, groups: [GROUPS.investigator] },
    { stream: keys.fixes, groups: [GROUPS.fixer] },
  ]
}
