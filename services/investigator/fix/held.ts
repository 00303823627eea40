/**
 * "Held in production" (docs/fixes.md): a pass of the investigator's periodic sweep over fixes
 * whose pull request was merged. The first release first seen after the merge that enough
 * sessions saw (FIX_HELD_MIN_SESSIONS) gives the verdict: held (the issue has no event of it) or
 * came back (it has: the issue's regression is linked to the fix in its history). A release the
 * issue has events of gives "came back" whatever its sessions. Sessions of a release are those the
 * service saw: error events of any issue and recordings, read through the grouper's and the
 * recorder's read faces; a session with neither is invisible to it.
 */
import type { FixHeldSettings } from '../../../shared/config/index.js'
import type { Db } from '../../../shared/db/index.js'
import type { ReleaseSeen } from '../../../shared/domain/releases.js'
import { MINUTE } from '../../../shared/time.js'
import { recordIssueHistory } from '../../grouper/commands/triage.js'
import { issueEventsInRelease, releaseEventSessions, releasesFirstSeen, releasesFirstSeenAfter } from '../../grouper/read/release-sessions.js'
import { recordedReleasesAfter, releaseRecordedSessions } from '../../recorder/read/release-sessions.js'
import { heldVerdict } from '../read/fix.js'

/** A waiting fix is looked at again after this long: new sessions arrive over hours, not seconds. */
const RECHECK_MS = 5 * MINUTE

/** Sessions counted past the threshold, so a verdict can say a little more than "at least N". */
const SESSIONS_READ_FACTOR = 10

export interface FixHeldOptions {
  db: Db
  settings: FixHeldSettings
}

/** Where one merged fix stands. */
export interface HeldJudgement {
  state: 'waiting' | 'held' | 'came_back'
  /** The release judged, or the one watched while waiting (null: none seen since the merge). */
  release: string | null
  sessions: number
  events: number
}

interface DueFix {
  id: string
  project_id: string
  issue_id: string
  pr_number: number | null
  pr_merged_at: Date
}

/** The service part the issue's history names for a verdict. */
const WATCHER = { actorKind: 'service', actorId: 'fix-held', actorLabel: 'the service' } as const

/** One pass: judges at most settings.perPass waiting merged fixes; answers how many reached a verdict. */
export async function judgeHeldFixes(options: FixHeldOptions, now = new Date()): Promise<number> {
  const { rows: due } = await options.db.query<DueFix>(
    `SELECT id, project_id, issue_id, pr_number, pr_merged_at FROM fixes
      WHERE pr_state = 'merged' AND pr_merged_at IS NOT NULL AND held_state IN ('', 'waiting')
        AND (held_checked_at IS NULL OR held_checked_at < $1)
      ORDER BY held_checked_at NULLS FIRST, pr_merged_at LIMIT $2`,
    [new Date(now.getTime() - RECHECK_MS), options.settings.perPass],
  )
  let decided = 0
  for (const fix of due) {
    const judgement = await judgeFix(options, fix)
    await options.db.withTransaction(async (tx) => {
      const { rowCount } = await tx.query(
        `UPDATE fixes SET held_state = $2, held_release = $3, held_sessions = $4, held_events = $5, held_checked_at = $6
          WHERE id = $1 AND held_state IN ('', 'waiting')`,
        [fix.id, judgement.state, judgement.release, judgement.sessions, judgement.events, now],
      )
      if (rowCount === 0 || judgement.state === 'waiting') return
      await recordIssueHistory(tx, fix.project_id, fix.issue_id, { ...WATCHER, action: 'pull_request', fromState: 'merged', toState: judgement.state, reason: heldVerdict(judgement, fix.pr_number), detail: { fix: fix.id, release: judgement.release, sessions: judgement.sessions, events: judgement.events } })
    })
    if (judgement.state !== 'waiting') decided++
  }
  return decided
}

/** The verdict of one merged fix from what the grouper and the recorder saw since its merge. */
async function judgeFix(options: FixHeldOptions, fix: DueFix): Promise<HeldJudgement> {
  const { db, settings } = options
  const mergedAt = fix.pr_merged_at
  const releases = await releasesAfterMerge(db, fix.project_id, mergedAt)
  const limit = settings.minSessions * SESSIONS_READ_FACTOR
  let watched: HeldJudgement = { state: 'waiting', release: null, sessions: 0, events: 0 }
  for (const release of releases) {
    // No event of a release is received before the grouper first saw it: its scan starts there.
    const eventsSince = release.firstSeen > mergedAt ? release.firstSeen : mergedAt
    const [events, fromEvents, fromRecordings] = await Promise.all([
      issueEventsInRelease(db, fix.issue_id, release.name, eventsSince),
      releaseEventSessions(db, fix.project_id, release.name, eventsSince, limit),
      releaseRecordedSessions(db, fix.project_id, release.name, mergedAt, limit),
    ])
    // Each list stops at limit, so their union is exact below it and at least limit above it.
    const sessions = new Set([...fromEvents, ...fromRecordings]).size
    if (events > 0) return { state: 'came_back', release: release.name, sessions, events }
    if (sessions >= settings.minSessions) return { state: 'held', release: release.name, sessions, events: 0 }
    if (watched.release === null) watched = { state: 'waiting', release: release.name, sessions, events: 0 }
  }
  return watched
}

/**
 * Releases first seen after the merge, oldest first: those the grouper first saw after it, and
 * those only recordings have shown (a release without errors), unless the grouper saw them before.
 */
async function releasesAfterMerge(db: Db, projectId: string, mergedAt: Date): Promise<ReleaseSeen[]> {
  const [fromEvents, fromRecordings] = await Promise.all([releasesFirstSeenAfter(db, projectId, mergedAt), recordedReleasesAfter(db, projectId, mergedAt)])
  const known = await releasesFirstSeen(db, projectId, fromRecordings.map((r) => r.name))
  const byName = new Map<string, ReleaseSeen>()
  for (const release of [...fromEvents, ...fromRecordings]) {
    if ((known.get(release.name) ?? release.firstSeen) <= mergedAt) continue
    const seen = byName.get(release.name)
    if (!seen || release.firstSeen < seen.firstSeen) byName.set(release.name, release)
  }
  return [...byName.values()].sort((a, b) => a.firstSeen.getTime() - b.firstSeen.getTime() || (a.name < b.name ? -1 : 1))
}
