/**
 * What an investigation looks at, read from the grouper's tables (pg and SQL, as the grouper
 * writes them): the issue, its project's repository, and its best-told recent event (the one whose
 * stack the source maps placed best), with that event's frames as the grouper stored them; for a
 * friction-kind issue, which has no events, its known problem instead (friction-subject.ts).
 */
import type { Db } from '../../../shared/db/index.js'
import type { StackFrame } from '../../grouper/read/frames.js'
import { loadFrictionSubject, type FrictionSubject } from './friction-subject.js'

export interface Subject {
  issue: { id: string; projectId: string; title: string; culprit: string; events: number; users: number; sessions: number; firstSeen: string; lastSeen: string; kind: string; noise: string }
  project: { repo: string; installationId: string }
  event: SubjectEvent | undefined
  /** A friction-kind issue's known problem (undefined for an error issue). */
  friction?: FrictionSubject
}

export interface SubjectEvent {
  release: string | undefined
  type: string
  message: string
  stack: string
  url: string
  userAgent: string
  breadcrumbs: unknown[]
  frames: StackFrame[]
}

/** How many recent events are looked at for the best-told one. */
const RECENT_EVENTS = 20

/** The issue, its project and best recent event; undefined when the issue is gone. */
export async function loadSubject(db: Db, issueId: string): Promise<Subject | undefined> {
  const { rows } = await db.query<{ id: string; project_id: string; title: string; culprit: string; event_count: string; user_count: number; session_count: number; first_seen: Date; last_seen: Date; kind: string; noise: string; codehost_repo: string; codehost_installation_id: string }>(
    `SELECT i.id, i.project_id, i.title, i.culprit, i.event_count, i.user_count, i.session_count, i.first_seen, i.last_seen, i.kind, i.noise,
            p.codehost_repo, p.codehost_installation_id
       FROM issues i JOIN projects p ON p.id = i.project_id WHERE i.id = $1`,
    [issueId],
  )
  const row = rows[0]
  if (!row) return undefined
  const friction = row.kind === 'friction' ? await loadFrictionSubject(db, issueId) : undefined
  const events = await db.query<{ release: string | null; grouping: { frames?: StackFrame[] }; payload: Record<string, unknown> }>(
    `SELECT release, grouping, payload FROM events WHERE issue_id = $1 AND whole ORDER BY received_at DESC LIMIT ${RECENT_EVENTS}`,
    [issueId],
  )
  const best = events.rows
    .map((event) => ({ event, placed: (event.grouping.frames ?? []).filter((frame) => frame.inApp && frame.original).length }))
    .sort((a, b) => b.placed - a.placed)[0]?.event
  return {
    issue: {
      id: row.id,
      projectId: row.project_id,
      title: row.title,
      culprit: row.culprit,
      events: Number(row.event_count),
      users: row.user_count,
      sessions: row.session_count,
      firstSeen: row.first_seen.toISOString(),
      lastSeen: row.last_seen.toISOString(),
      kind: row.kind,
      noise: row.noise,
    },
    project: { repo: row.codehost_repo, installationId: row.codehost_installation_id },
    event: best && subjectEvent(best.release, best.payload, best.grouping.frames ?? []),
    ...(friction ? { friction } : {}),
  }
}

function subjectEvent(release: string | null, payload: Record<string, unknown>, frames: StackFrame[]): SubjectEvent {
  const error = (payload.error ?? {}) as Record<string, unknown>
  const context = (payload.context ?? {}) as Record<string, unknown>
  const text = (value: unknown): string => (typeof value === 'string' ? value : '')
  return {
    release: release ?? undefined,
    type: text(error.type),
    message: text(error.message),
    stack: text(error.stack),
    url: text(context.url),
    userAgent: text(context.user_agent),
    breadcrumbs: Array.isArray(payload.breadcrumbs) ? payload.breadcrumbs : [],
    frames,
  }
}

/** What admission's stack check reads of an issue: its project's repository and its latest events' frames and page. */
export interface RecentFrames {
  project: { repo: string; installationId: string }
  events: Array<{ url: string; frames: StackFrame[] }>
}

/** How many of the latest events the stack check looks at. */
const FRAMES_EVENTS = 5

/**
 * The latest events' frames and pages, without their payloads (the page address is read out in
 * the database): the stack check runs on every newly qualifying issue, so it ships kilobytes, not
 * the twenty bodies an investigation reads. Undefined when the issue is gone.
 */
export async function loadRecentFrames(db: Db, issueId: string): Promise<RecentFrames | undefined> {
  const { rows } = await db.query<{ codehost_repo: string; codehost_installation_id: string }>(
    'SELECT p.codehost_repo, p.codehost_installation_id FROM issues i JOIN projects p ON p.id = i.project_id WHERE i.id = $1',
    [issueId],
  )
  if (!rows[0]) return undefined
  const events = await db.query<{ grouping: { frames?: StackFrame[] }; url: string | null }>(
    `SELECT grouping, payload->'context'->>'url' AS url FROM events WHERE issue_id = $1 AND whole ORDER BY received_at DESC LIMIT ${FRAMES_EVENTS}`,
    [issueId],
  )
  return {
    project: { repo: rows[0].codehost_repo, installationId: rows[0].codehost_installation_id },
    events: events.rows.map((event) => ({ url: event.url ?? '', frames: event.grouping.frames ?? [] })),
  }
}
