/**
 * The fix side of an issue as people and agents see it (the issue page, the project API, the tool
 * server). Asking for one is a command: services/investigator/commands.ts.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Orm } from '../../../shared/db/orm.js'
import { Fix, FixEvidence } from '../store/fix-entities.js'

export interface FixView {
  id: string
  state: string
  trigger: string
  attempts: number
  createdAt: string
  finishedAt: string | null
  branch: string
  summary: string
  testFile: string
  review: { verdict: string; reason: string } | null
  pullRequest: { number: number; url: string; delivery: string; draft: boolean; headSha: string } | null
  /** Repository CI on the pull request's head, as last read back: none, pending, success, failure ('' before the first read). */
  ci: { state: string; checkedAt: string | null }
  stop: { reasonCode: string; reasonMessage: string; remediation: string } | null
  usage: { turns: number; inputTokens: number; outputTokens: number; durationMs: number }
  /** The executed checks of the latest attempt, in order. */
  evidence: Array<{ tier: string; phase: string; command: string; exitCode: number | null; timedOut: boolean; met: boolean; infraError: string; excerpt: string }>
  /** After its pull request was merged: whether the fix held in production (docs/fixes.md, "Held in production"); null before a merge. */
  held: HeldView | null
}

/** "Held in production": the verdict, or waiting for one, with the release it is about. */
export interface HeldView {
  state: 'waiting' | 'held' | 'came_back'
  /** The release judged, or watched while waiting (null: none seen since the merge yet). */
  release: string | null
  /** Distinct sessions the service saw in that release (error events of any issue, recordings). */
  sessions: number
  /** The issue's events of that release. */
  events: number
  checkedAt: string | null
  /** The verdict as a line: "held: 0 events in N sessions of release R", "came back in release R". */
  verdict: string
}

/** The issue's latest fix; undefined when it never had one. */
export async function readFix(orm: Orm, issueId: string): Promise<FixView | undefined> {
  const em = orm.em.fork() as EntityManager
  const fix = await em.findOne(Fix, { issueId }, { orderBy: { createdAt: 'desc' } })
  if (!fix) return undefined
  const evidence = await em.find(FixEvidence, { fixId: fix.id, attempt: fix.attempts }, { orderBy: { seq: 'asc' } })
  return {
    id: fix.id,
    state: fix.state,
    trigger: fix.trigger,
    attempts: fix.attempts,
    createdAt: fix.createdAt.toISOString(),
    finishedAt: fix.finishedAt?.toISOString() ?? null,
    branch: fix.branch,
    summary: fix.summary,
    testFile: fix.testFile,
    review: fix.review ? { verdict: fix.review, reason: fix.reviewReason } : null,
    pullRequest: fix.prNumber === null ? null : { number: fix.prNumber, url: fix.prUrl, delivery: fix.delivery, draft: fix.delivery !== 'ready', headSha: fix.headSha },
    ci: { state: fix.ciState, checkedAt: fix.ciCheckedAt?.toISOString() ?? null },
    stop: fix.state === 'needs_human' ? { reasonCode: fix.reasonCode, reasonMessage: fix.reasonMessage, remediation: fix.remediation } : null,
    usage: { turns: fix.turns, inputTokens: fix.inputTokens, outputTokens: fix.outputTokens, durationMs: fix.durationMs },
    evidence: evidence.map((e) => ({ tier: e.tier, phase: e.phase, command: e.command, exitCode: e.exitCode, timedOut: e.timedOut, met: e.met, infraError: e.infraError, excerpt: e.excerpt })),
    held: await readHeld(em, fix.id),
  }
}

/** The fix's held columns (migration 084), read beside its entity; null unless its pull request was merged. */
async function readHeld(em: EntityManager, fixId: string): Promise<HeldView | null> {
  const [row] = await em.execute<Array<{ pr_state: string; held_state: string; held_release: string | null; held_sessions: number | null; held_events: string | null; held_checked_at: Date | string | null }>>(
    'SELECT pr_state, held_state, held_release, held_sessions, held_events, held_checked_at FROM fixes WHERE id = ?',
    [fixId],
  )
  if (!row || row.pr_state !== 'merged') return null
  const held: Omit<HeldView, 'checkedAt' | 'verdict'> = {
    state: row.held_state === 'held' || row.held_state === 'came_back' ? row.held_state : 'waiting',
    release: row.held_release,
    sessions: row.held_sessions ?? 0,
    events: Number(row.held_events ?? 0),
  }
  return { ...held, checkedAt: row.held_checked_at === null ? null : new Date(row.held_checked_at).toISOString(), verdict: heldVerdict(held) }
}

/** A held verdict as one line (the issue's history names the pull request). */
export function heldVerdict(held: Pick<HeldView, 'state' | 'release' | 'sessions' | 'events'>, prNumber?: number | null): string {
  const subject = prNumber ? `fix pull request #${prNumber}` : 'the fix'
  if (held.state === 'held') return `${subject} held: 0 events in ${held.sessions} sessions of release ${held.release}`
  if (held.state === 'came_back') return `${subject} came back in release ${held.release} (${held.events} ${held.events === 1 ? 'event' : 'events'})`
  if (held.release) return `${subject} merged: waiting for more sessions of release ${held.release} (${held.sessions} so far)`
  return `${subject} merged: waiting for a release first seen after the merge`
}
