/**
 * A project's environments as people look them up: by name, with the UUID the operator commands
 * take (--environment). What the settings page shows and `svc environments` prints; the grouper
 * (and the recorder, for a recording's environment) makes the rows, nobody renames them.
 */
import type { Queryable } from '../../../shared/db/index.js'

/** One environment: its id and name, and when an event or recording first named it. */
export interface EnvironmentRow {
  id: string
  name: string
  created_at: Date
}

/** An environment with what the friction commands act on: its recordings and its known problems. */
export interface EnvironmentFacts extends EnvironmentRow {
  /** Recordings kept of it, and how many of them are closed (those svc backfill-tickets looks at). */
  recordings: number
  closed_recordings: number
  /** The latest activity of its recordings; null without any. */
  last_recording_at: Date | null
  /** Its known problems that are not archived (those svc reset-friction-tickets archives). */
  known_problems: number
}

/** The project's environments by name, at most limit of them, and how many it has in all. */
export async function listEnvironments(db: Queryable, projectId: string, limit: number): Promise<{ environments: EnvironmentRow[]; total: number }> {
  const [listed, total] = await Promise.all([
    db.query<EnvironmentRow>('SELECT id, name, created_at FROM environments WHERE project_id = $1 ORDER BY name LIMIT $2', [projectId, limit]),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM environments WHERE project_id = $1', [projectId]),
  ])
  return { environments: listed.rows, total: total.rows[0]!.n }
}

/**
 * Every environment of the project by name, with its recordings and known problems counted. One
 * pass over the project's recordings and tickets: for an operator's command, not for a page.
 */
export async function getEnvironmentFacts(db: Queryable, projectId: string): Promise<EnvironmentFacts[]> {
  const { rows } = await db.query<EnvironmentFacts>(
    `WITH recorded AS (
       SELECT environment_id, count(*)::int AS n, (count(*) FILTER (WHERE closed_at IS NOT NULL))::int AS closed, max(last_at) AS last_at
         FROM recordings WHERE project_id = $1 AND environment_id IS NOT NULL GROUP BY environment_id
     ), problems AS (
       SELECT environment_id, count(*)::int AS n FROM tickets
        WHERE project_id = $1 AND environment_id IS NOT NULL AND state <> 'archived' GROUP BY environment_id
     )
     SELECT e.id, e.name, e.created_at, coalesce(r.n, 0) AS recordings, coalesce(r.closed, 0) AS closed_recordings,
            r.last_at AS last_recording_at, coalesce(p.n, 0) AS known_problems
       FROM environments e
       LEFT JOIN recorded r ON r.environment_id = e.id
       LEFT JOIN problems p ON p.environment_id = e.id
      WHERE e.project_id = $1
      ORDER BY e.name`,
    [projectId],
  )
  return rows
}
