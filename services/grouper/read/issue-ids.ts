/**
 * Which of a list of issue ids are a project's, and whether each was merged: what a bulk action
 * checks before it changes anything (an id of another project is "not found", as on its own).
 */
import type { Queryable } from '../../../shared/db/index.js'

/** The ids among issueIds that are projectId's issues, each with the issue it was merged into (null: not merged). */
export async function projectIssueIds(db: Queryable, projectId: string, issueIds: readonly string[]): Promise<Map<string, string | null>> {
  if (issueIds.length === 0) return new Map()
  const { rows } = await db.query<{ id: string; merged_into: string | null }>('SELECT id, merged_into FROM issues WHERE project_id = $1 AND id = ANY($2::uuid[])', [projectId, [...issueIds]])
  return new Map(rows.map((row) => [row.id, row.merged_into]))
}
