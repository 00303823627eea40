/**
 * What session recordings say about a release, as the investigator's "held in production" verdict
 * reads it (docs/fixes.md, "Held in production"): the releases the project's recordings started in
 * after a time, and the distinct sessions recorded in a release. Bounded by the project's
 * recordings (recordings_project_last), which retention keeps to its window.
 */
import type { Queryable } from '../../../shared/db/index.js'
import type { ReleaseSeen } from '../../../shared/domain/releases.js'

/** Releases whose first recording (of those still kept) started after `after`, oldest first (at most limit). */
export async function recordedReleasesAfter(db: Queryable, projectId: string, after: Date, limit = 20): Promise<ReleaseSeen[]> {
  const { rows } = await db.query<{ release: string; first_seen: Date }>(
    `SELECT release, min(started_at) AS first_seen FROM recordings
      WHERE project_id = $1 AND release IS NOT NULL AND release <> ''
      GROUP BY release HAVING min(started_at) > $2 ORDER BY first_seen, release LIMIT $3`,
    [projectId, after, limit],
  )
  return rows.map((row) => ({ name: row.release, firstSeen: row.first_seen }))
}

/** Distinct session ids recorded in release, active since `since`, at most limit. */
export async function releaseRecordedSessions(db: Queryable, projectId: string, release: string, since: Date, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ session_id: string }>(
    `SELECT DISTINCT session_id FROM recordings WHERE project_id = $1 AND last_at >= $2 AND release = $3 AND session_id <> '' LIMIT $4`,
    [projectId, since, release, limit],
  )
  return rows.map((row) => row.session_id)
}
