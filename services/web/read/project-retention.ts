/**
 * The web side's read face for other actors: each project's own retention (projects.retention_days,
 * set on the settings page; NULL: the service's default), which the grouper's retention pass reads.
 */
import type { Queryable } from '../../../shared/db/index.js'

export interface ProjectRetention {
  projectId: string
  /** Days its events are kept, or null for the service's default (SVC_RETENTION_DAYS). */
  retentionDays: number | null
}

/** Every project's retention setting. */
export async function getProjectRetentions(db: Queryable): Promise<ProjectRetention[]> {
  const { rows } = await db.query<ProjectRetention>('SELECT id AS "projectId", retention_days AS "retentionDays" FROM projects')
  return rows
}
