/**
 * What a release was seen in, as the investigator's "held in production" verdict reads it
 * (docs/fixes.md, "Held in production"): the project's releases first seen after a time, the
 * distinct sessions of a release's error events, and an issue's events of a release. Each is
 * bounded: sessions stop at a limit, and every scan starts from the time asked about on
 * events_project_received or events_issue_received, not from the project's first event.
 */
import type { Queryable } from '../../../shared/db/index.js'
import type { ReleaseSeen } from '../../../shared/domain/releases.js'

/** Releases the project first sent after `after`, oldest first (at most limit). */
export async function releasesFirstSeenAfter(db: Queryable, projectId: string, after: Date, limit = 20): Promise<ReleaseSeen[]> {
  const { rows } = await db.query<{ name: string; first_seen: Date }>('SELECT name, first_seen FROM releases WHERE project_id = $1 AND first_seen > $2 ORDER BY first_seen, name LIMIT $3', [projectId, after, limit])
  return rows.map((row) => ({ name: row.name, firstSeen: row.first_seen }))
}

/** When the project first sent each of names (absent: never); tells a release older than a merge from a new one. */
export async function releasesFirstSeen(db: Queryable, projectId: string, names: readonly string[]): Promise<Map<string, Date>> {
  if (names.length === 0) return new Map()
  const { rows } = await db.query<{ name: string; first_seen: Date }>('SELECT name, first_seen FROM releases WHERE project_id = $1 AND name = ANY($2)', [projectId, [...names]])
  return new Map(rows.map((row) => [row.name, row.first_seen]))
}

/**
 * Distinct session ids of the project's error events (any issue) of release received since
 * `since`, at most limit: a caller that needs "at least N" asks for N and stops reading there.
 */
export async function releaseEventSessions(db: Queryable, projectId: string, release: string, since: Date, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ session_id: string }>(
    `SELECT DISTINCT session_id FROM events
      WHERE project_id = $1 AND received_at >= $2 AND release = $3 AND session_id IS NOT NULL AND session_id <> ''
      LIMIT $4`,
    [projectId, since, release, limit],
  )
  return rows.map((row) => row.session_id)
}

/** The issue's events of release received since `since` (events of issues merged into it included: they moved to it). */
export async function issueEventsInRelease(db: Queryable, issueId: string, release: string, since: Date): Promise<number> {
  const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE issue_id = $1 AND received_at >= $2 AND release = $3', [issueId, since, release])
  return Number(rows[0]?.n ?? 0)
}
