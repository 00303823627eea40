/**
 * The project's issue list as the dashboard, the project API and the tool server read it: the
 * grouper's issues, most recently seen first.
 */
import type { Queryable } from '../../../shared/db/index.js'

export interface IssueRow {
  id: string
  title: string
  culprit: string
  status: string
  kind: string
  /** Why the issue is noise (resize-observer-loop, cross-origin-script-error, browser-extension), '' when it is not. */
  noise: string
  event_count: string
  user_count: number
  session_count: number
  first_seen: Date
  last_seen: Date
}

export interface IssueList {
  issues: IssueRow[]
  /** Noise issues of the project, listed or not. */
  noiseCount: number
}

/** The project's issues, most recently seen first; noise issues only when withNoise. */
export async function listIssues(db: Queryable, projectId: string, withNoise: boolean, limit = 200): Promise<IssueList> {
  const [listed, noise] = await Promise.all([
    db.query<IssueRow>(
      `SELECT id, title, culprit, status, kind, noise, event_count, user_count, session_count, first_seen, last_seen
         FROM issues WHERE project_id = $1 AND ($2 OR noise = '') ORDER BY last_seen DESC LIMIT $3`,
      [projectId, withNoise, limit],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM issues WHERE project_id = $1 AND noise <> ''`, [projectId]),
  ])
  return { issues: listed.rows, noiseCount: noise.rows[0]?.n ?? 0 }
}
