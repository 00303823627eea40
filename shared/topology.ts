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
  /** Published known problems: the investigator opens the investigation of each the matcher hands it. */
  published: 'investigator-published',
  /** Recordings: stores each accepted chunk's metadata in PostgreSQL. */
  recorder: 'recorder',
  /** The matcher: scans recordings, matches findings, confirms known problems (stream:friction). */
  matcher: 'matcher',
  /** The digester: writes, checks and delivers each project's daily digest (stream:digests). */
  digester: 'digester',
  /** The alerter: decides alert firings from the issue-change notes (stream:issue-changes). */
  alerter: 'alerter',
  /** The alerter's deliveries: posts folded alerts to the project's chat (stream:alerts). */
  alertDeliveries: 'alerter-deliveries',
})

/**
 * Each stream with the groups that must see every entry of it; name is the stream's key without
 * the deployment's prefix (what metrics label it by).
 */
export function streamTopology(keys: StreamKeys): ReadonlyArray<{ name: string; stream: string; groups: readonly string[] }> {
  return [
    { name: 'events', stream: keys.events, groups: [GROUPS.grouper] },
    { name: 'issue-changes', stream: keys.issueChanges, groups: [GROUPS.admission, GROUPS.alerter] },
    { name: 'investigations', stream: keys.investigations, groups: [GROUPS.investigator] },
    { name: 'fixes', stream: keys.fixes, groups: [GROUPS.fixer] },
    { name: 'recordings', stream: keys.recordings, groups: [GROUPS.recorder] },
    { name: 'friction', stream: keys.friction, groups: [GROUPS.matcher] },
    { name: 'published-problems', stream: keys.publishedProblems, groups: [GROUPS.published] },
    { name: 'digests', stream: keys.digests, groups: [GROUPS.digester] },
    { name: 'alerts', stream: keys.alerts, groups: [GROUPS.alertDeliveries] },
  ]
}
