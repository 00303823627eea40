/** The web side's projects as other actors list them: ids only, for per-project figures (the workers' storage gauges). */
import type { Queryable } from '../../../shared/db/index.js'

/** Up to limit project ids, oldest project first (a cut list keeps the same projects from one call to the next). */
export async function listProjectIds(db: Queryable, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM projects ORDER BY created_at, id LIMIT $1', [limit])
  return rows.map((row) => row.id)
}
