/**
 * What the recording pages and the project API read (docs/recordings.md): a project's recordings
 * with filters, one recording with its chunks, the sessions an issue happened in, and which stored
 * event (and issue) an svc.error marker of a replay names. Callers have checked that the project is
 * the viewer's; every query is bounded by the project id, so another project's recording is never
 * found.
 */
import type { Queryable } from '../../../shared/db/index.js'
import { userKey } from '../../../shared/domain/user-key.js'
import { isUuid } from '../../../shared/domain/uuid.js'
import type { ChunkRef } from './chunks.js'

/** Recordings per page of the list. */
export const RECORDINGS_PER_PAGE = 50
/** Pages of the list that can be asked for: past that, narrow the filters. */
export const MAX_LIST_PAGE = 200
/** Sessions listed on an issue page. */
export const ISSUE_SESSIONS = 20
/**
 * The issue's latest events with a recording that its sessions are taken from: an issue seen in
 * thousands of sessions still answers at once, listing the sessions of its recent events.
 */
export const ISSUE_SESSION_EVENTS = 1_000

/** One recording as lists and the session page show it; user_label, release and pages are untrusted text. */
export interface RecordingSummary {
  id: string
  user_label: string | null
  user_key: string | null
  release: string | null
  environment: string | null
  started_at: Date
  last_at: Date
  closed_at: Date | null
  pages: string[]
  clicks: number
  errors: number
  chunks: number
  max_seq: number
}

/** A recording the issue happened in, with when its first event of the issue occurred there. */
export interface IssueSession extends RecordingSummary {
  event_at: Date
}

/** The list's filters as the query string gives them; empty means no filter. */
export interface RecordingFilters {
  /** A user's label (part of it, any case) or the exact id, email or username they were recorded as. */
  user: string
  /** Part of a visited page's path or query, any case. */
  page: string
  hasError: boolean
}

const COLUMNS = `r.id, r.user_label, r.user_key, r.release, env.name AS environment, r.started_at, r.last_at, r.closed_at,
                 r.pages, r.clicks, r.errors, r.chunks, r.max_seq`

/** Chunks lost on the way: the highest seq seen says how many there should be. */
export function missingChunks(recording: Pick<RecordingSummary, 'chunks' | 'max_seq'>): number {
  return Math.max(0, recording.max_seq + 1 - recording.chunks)
}

/** LIKE's wildcards taken literally, so "100%" finds "100%". */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`
}

/**
 * A page of the project's recordings, the most recently active first; one more row than a page is
 * read, so the caller knows whether a next page exists.
 */
export async function listRecordings(db: Queryable, projectId: string, filters: RecordingFilters, page: number): Promise<{ recordings: RecordingSummary[]; more: boolean }> {
  const user = filters.user.trim()
  const visited = filters.page.trim()
  const { rows } = await db.query<RecordingSummary>(
    `SELECT ${COLUMNS}
       FROM recordings r LEFT JOIN environments env ON env.id = r.environment_id
      WHERE r.project_id = $1
        AND ($2 = '' OR r.user_label ILIKE $3 OR r.user_key = $4)
        AND ($5 = '' OR EXISTS (SELECT 1 FROM unnest(r.pages) AS p (path) WHERE p.path ILIKE $6))
        AND (NOT $7 OR r.errors > 0)
      ORDER BY r.last_at DESC, r.id
      LIMIT $8 OFFSET $9`,
    [projectId, user, containing(user), userKey(projectId, { id: user }) ?? '', visited, containing(visited), filters.hasError, RECORDINGS_PER_PAGE + 1, (page - 1) * RECORDINGS_PER_PAGE],
  )
  return { recordings: rows.slice(0, RECORDINGS_PER_PAGE), more: rows.length > RECORDINGS_PER_PAGE }
}

/** One recording of the project. */
export async function getRecording(db: Queryable, projectId: string, recordingId: string): Promise<RecordingSummary | undefined> {
  if (!isUuid(recordingId)) return undefined
  const { rows } = await db.query<RecordingSummary>(
    `SELECT ${COLUMNS} FROM recordings r LEFT JOIN environments env ON env.id = r.environment_id WHERE r.project_id = $1 AND r.id = $2`,
    [projectId, recordingId],
  )
  return rows[0]
}

/** The recording's stored chunks in seq order, the order the replay plays them in. */
export async function listChunks(db: Queryable, projectId: string, recordingId: string): Promise<ChunkRef[]> {
  const { rows } = await db.query<ChunkRef>('SELECT seq, object_key FROM recording_chunks WHERE project_id = $1 AND recording_id = $2 ORDER BY seq', [projectId, recordingId])
  return rows
}

/**
 * The recordings the issue happened in (events.recording_id of the same project), newest first,
 * ISSUE_SESSIONS at most, each with the first of the issue's events in it.
 */
export async function listIssueSessions(db: Queryable, projectId: string, issueId: string): Promise<IssueSession[]> {
  const { rows } = await db.query<IssueSession>(
    `WITH recent AS (
       SELECT recording_id, occurred_at FROM events
        WHERE issue_id = $1 AND recording_id IS NOT NULL ORDER BY received_at DESC LIMIT $3
     ), firsts AS (
       SELECT recording_id, min(occurred_at) AS event_at FROM recent GROUP BY recording_id
     )
     SELECT ${COLUMNS}, f.event_at
       FROM firsts f
       JOIN recordings r ON r.project_id = $2 AND r.id = f.recording_id
       LEFT JOIN environments env ON env.id = r.environment_id
      ORDER BY r.started_at DESC, r.id
      LIMIT $4`,
    [issueId, projectId, ISSUE_SESSION_EVENTS, ISSUE_SESSIONS],
  )
  return rows
}

/**
 * The issues of the stored events that svc.error markers name (the SDK's event_id), by that id;
 * an event the service refused or has not stored yet is absent.
 */
export async function getMarkedIssues(db: Queryable, projectId: string, senderEventIds: readonly string[]): Promise<Map<string, string>> {
  const byStoredId = new Map<string, string>()
  for (const id of new Set(senderEventIds)) {
    const stored = storedEventId(projectId, id)
    if (stored) byStoredId.set(stored, id)
  }
  if (byStoredId.size === 0) return new Map()
  const { rows } = await db.query<{ id: string; issue_id: string }>('SELECT id, issue_id FROM events WHERE project_id = $1 AND id = ANY($2::uuid[])', [projectId, [...byStoredId.keys()]])
  return new Map(rows.map((row) => [byStoredId.get(row.id)!, row.issue_id]))
}

/**
 * The id the ingress stores an event under when the sender gave event_id: the sender's 128 bits
 * XOR the project's (services/ingress/event-id.ts, which the web side may not import; a test holds
 * the two to the same answers). undefined for an id that is not 32 hex digits.
 */
export function storedEventId(projectId: string, senderEventId: string): string | undefined {
  const hex = senderEventId.replaceAll('-', '')
  if (!/^[0-9a-f]{32}$/i.test(hex)) return undefined
  const bits = Buffer.from(hex, 'hex')
  const project = Buffer.from(projectId.replaceAll('-', ''), 'hex')
  for (let i = 0; i < 16; i++) bits[i]! ^= project[i]!
  const out = bits.toString('hex')
  return `${out.slice(0, 8)}-${out.slice(8, 12)}-${out.slice(12, 16)}-${out.slice(16, 20)}-${out.slice(20)}`
}
