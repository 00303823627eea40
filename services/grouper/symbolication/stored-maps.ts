/** The MapSource behind the symbolicator: the maps a project uploaded, read from the object store. */
import type { Queryable } from '../../../shared/db/index.js'
import type { ObjectStore } from '../../../shared/object-store.js'
import type { MapSource } from './symbolicator.js'

/** Looks maps up in the sourcemaps table and reads them from the object store. */
export function storedMaps(db: Queryable, objects: ObjectStore): MapSource {
  const read = async (sql: string, values: unknown[]): Promise<string | undefined> => {
    const { rows } = await db.query<{ object_key: string }>(sql, values)
    if (!rows[0]) return undefined
    return (await objects.get(rows[0].object_key))?.toString('utf8')
  }
  return {
    hasMaps: async (projectId) => (await db.query('SELECT 1 FROM projects WHERE id = $1 AND sourcemaps_uploaded_at IS NOT NULL', [projectId])).rowCount === 1,
    byDebugId: (projectId, debugId) => read('SELECT object_key FROM sourcemaps WHERE project_id = $1 AND debug_id = $2', [projectId, debugId.toLowerCase()]),
    byUrlPath: (projectId, release, urlPath) => read('SELECT object_key FROM sourcemaps WHERE project_id = $1 AND release = $2 AND url_path = $3', [projectId, release, urlPath]),
  }
}
