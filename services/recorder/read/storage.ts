/**
 * What a project's recordings take in the object store: the stored bytes of every chunk kept
 * (recordings.bytes, which the recorder adds each new chunk's stored size to, migration 010), for
 * the storage panel and the per-project gauges.
 */
import type { Queryable } from '../../../shared/db/index.js'

/** A project's kept recordings and the bytes their chunks take. */
export interface RecordingsStorage {
  recordings: number
  bytes: number
}

/** Sums projectId's kept recordings' stored bytes. */
export async function getRecordingsStorage(db: Queryable, projectId: string): Promise<RecordingsStorage> {
  const { rows } = await db.query<{ recordings: number; bytes: string }>(
    'SELECT count(*)::int AS recordings, coalesce(sum(bytes), 0)::text AS bytes FROM recordings WHERE project_id = $1',
    [projectId],
  )
  return { recordings: rows[0]!.recordings, bytes: Number(rows[0]!.bytes) }
}
