/**
 * The source-map upload use case, free of HTTP: check the map, store it in the object store under
 * a key named by its content, then record which file, release or debug id it serves and set the
 * project's sourcemaps_uploaded fact. A failed object write records nothing.
 */
import { createHash } from 'node:crypto'
import type { Db } from '../../shared/db/index.js'
import { ObjectStoreUnavailable, type ObjectStore } from '../../shared/object-store.js'
import { IngestError } from './errors.js'

export interface UploadTarget {
  /** URL path of the minified file the map serves, e.g. /assets/index-4f3a.js. */
  path: string | undefined
  release: string | undefined
  debugId: string | undefined
}

export interface UploadedMap {
  id: string
  path: string | null
  release: string
  debug_id: string | null
  bytes: number
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Stores one map for a project; throws IngestError with the reason when it cannot. */
export async function uploadSourceMap(deps: { db: Db; objects: ObjectStore }, projectId: string, target: UploadTarget, body: string): Promise<UploadedMap> {
  const path = target.path?.trim() || undefined
  const release = (target.release ?? '').trim()
  const debugId = target.debugId?.trim().toLowerCase() || undefined
  if (debugId !== undefined && !UUID.test(debugId)) throw new IngestError('sourcemap_target_missing', { message: 'X-Svc-Debug-Id must be the UUID stamped into the chunk and its map.' })
  if (path !== undefined && (!path.startsWith('/') || path.length > 2048)) throw new IngestError('sourcemap_target_missing', { message: 'path must be the URL path of the minified file, starting with / (e.g. /assets/app.js).' })
  if (release.length > 200) throw new IngestError('sourcemap_target_missing', { message: 'release is longer than 200 characters.' })
  if (!debugId && !(path && release)) throw new IngestError('sourcemap_target_missing')
  checkMap(body)

  const digest = createHash('sha256').update(body).digest('hex')
  const objectKey = `projects/${projectId}/sourcemaps/${digest}.map`
  try {
    await deps.objects.put(objectKey, Buffer.from(body))
  } catch (error) {
    if (error instanceof ObjectStoreUnavailable) throw new IngestError('objectstore_unavailable', { message: error.message })
    throw error
  }
  const bytes = Buffer.byteLength(body)
  // A map known only by its debug id still needs a row key unique within the release.
  const urlPath = path ?? `debug-id:${debugId}`
  return deps.db.withTransaction(async (client) => {
    // One map per debug id: a re-upload under another path or release takes it over.
    if (debugId) await client.query('DELETE FROM sourcemaps WHERE project_id = $1 AND debug_id = $2 AND NOT (release = $3 AND url_path = $4)', [projectId, debugId, release, urlPath])
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO sourcemaps (project_id, release, url_path, debug_id, object_key, bytes) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (project_id, release, url_path) DO UPDATE SET debug_id = EXCLUDED.debug_id, object_key = EXCLUDED.object_key, bytes = EXCLUDED.bytes, uploaded_at = now()
       RETURNING id`,
      [projectId, release, urlPath, debugId ?? null, objectKey, bytes],
    )
    await client.query('UPDATE projects SET sourcemaps_uploaded_at = COALESCE(sourcemaps_uploaded_at, now()) WHERE id = $1', [projectId])
    return { id: rows[0]!.id, path: path ?? null, release, debug_id: debugId ?? null, bytes }
  })
}

/** A source map is JSON with version 3 and either mappings or sections (an index map). */
function checkMap(body: string): void {
  let map: unknown
  try {
    map = JSON.parse(body)
  } catch {
    throw new IngestError('invalid_sourcemap', { message: 'The body is not valid JSON. Upload the .map file the build wrote.' })
  }
  const candidate = map as { version?: unknown; mappings?: unknown; sections?: unknown }
  const ok = typeof map === 'object' && map !== null && candidate.version === 3 && (typeof candidate.mappings === 'string' || Array.isArray(candidate.sections))
  if (!ok) throw new IngestError('invalid_sourcemap')
}
