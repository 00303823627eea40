/**
 * The recorder's fleet-wide sweeps (docs/recordings.md, "Closing and retention"): close the
 * recordings no chunk reached for a while, delete the ones past retention (their objects first,
 * then their rows), and delete the objects of ledger keys no chunk row ever named. Each works in
 * bounded batches and takes rows with SKIP LOCKED, so two workers sweeping at once (the sweeper's
 * lock lapsed, or sweepNow) share the work instead of doing it twice or waiting on each other.
 */
import type { Redis } from 'ioredis'
import type { Db } from '../../shared/db/index.js'
import type { ObjectStore } from '../../shared/object-store.js'
import { isChunkObjectKey } from '../../shared/domain/recording-chunk.js'
import { DAY } from '../../shared/time.js'

/** Recordings closed per statement, and statements per pass (the next pass takes the rest). */
const CLOSE_BATCH = 1000
const CLOSE_BATCHES = 20
/**
 * Recordings deleted per transaction, and transactions per pass. A recording of half an hour holds
 * about 60 chunks, so a batch deletes some 12,000 objects (12 requests to S3) while it holds its rows.
 */
const RETENTION_BATCH = 200
const RETENTION_BATCHES = 25
/** Ledger keys looked at per round, and rounds per pass. */
const ORPHAN_BATCH = 500
const ORPHAN_BATCHES = 20
/**
 * A ledger key this old whose row never came is an orphan: its put's stream entry was refused (the
 * ingress deleted the object again, or meant to) or is long dead-lettered. An entry still waiting
 * on the stream after a day would find its object gone.
 */
export const ORPHAN_AFTER = DAY

/** Closes open recordings whose last chunk arrived idleMs or longer before now; answers how many. */
export async function closeIdle(db: Db, idleMs: number, now = Date.now()): Promise<number> {
  let closed = 0
  for (let batch = 0; batch < CLOSE_BATCHES; batch++) {
    const { rowCount } = await db.query(
      `UPDATE recordings SET closed_at = now()
       WHERE (project_id, id) IN (
         SELECT project_id, id FROM recordings WHERE closed_at IS NULL AND received_at <= $1
         ORDER BY received_at LIMIT ${CLOSE_BATCH} FOR UPDATE SKIP LOCKED)`,
      [new Date(now - idleMs)],
    )
    closed += rowCount ?? 0
    if ((rowCount ?? 0) < CLOSE_BATCH) break
  }
  return closed
}

/**
 * Deletes the recordings whose last activity is retentionMs or longer before now: per batch, the
 * chunks' objects first, then the rows (the chunks' go with them), in one transaction that holds
 * the rows, so a chunk arriving meanwhile waits and then starts the recording afresh. A store that
 * is down fails the batch with nothing deleted from the database; the next pass tries again.
 */
export async function deleteExpired(db: Db, objects: ObjectStore, retentionMs: number, now = Date.now()): Promise<{ recordings: number; objects: number }> {
  const deleted = { recordings: 0, objects: 0 }
  for (let batch = 0; batch < RETENTION_BATCHES; batch++) {
    const done = await db.withTransaction(async (client) => {
      const { rows } = await client.query<{ project_id: string; id: string }>(
        `SELECT project_id, id FROM recordings WHERE last_at <= $1 ORDER BY last_at LIMIT ${RETENTION_BATCH} FOR UPDATE SKIP LOCKED`,
        [new Date(now - retentionMs)],
      )
      if (rows.length === 0) return { recordings: 0, objects: 0 }
      const ids = [rows.map((row) => row.project_id), rows.map((row) => row.id)]
      const { rows: chunks } = await client.query<{ object_key: string }>(
        `SELECT c.object_key FROM recording_chunks c JOIN unnest($1::uuid[], $2::uuid[]) AS d(p, r) ON c.project_id = d.p AND c.recording_id = d.r`,
        ids,
      )
      const keys = chunks.map((chunk) => chunk.object_key).filter(isChunkObjectKey)
      if (keys.length > 0) await objects.delete(keys)
      await client.query(`DELETE FROM recordings r USING unnest($1::uuid[], $2::uuid[]) AS d(p, r) WHERE r.project_id = d.p AND r.id = d.r`, ids)
      return { recordings: rows.length, objects: keys.length }
    })
    deleted.recordings += done.recordings
    deleted.objects += done.objects
    if (done.recordings < RETENTION_BATCH) break
  }
  return deleted
}

/**
 * Clears the ledger of keys older than ORPHAN_AFTER: a key a chunk row names only leaves the
 * ledger (its entry was stored and the removal was lost); any other key's object is deleted first.
 * Answers how many objects it deleted and how many keys it only removed.
 */
export async function clearOrphans(db: Db, objects: ObjectStore, redis: Redis, ledger: string, now = Date.now()): Promise<{ deleted: number; kept: number }> {
  const cleared = { deleted: 0, kept: 0 }
  for (let batch = 0; batch < ORPHAN_BATCHES; batch++) {
    const keys = await redis.zrangebyscore(ledger, '-inf', now - ORPHAN_AFTER, 'LIMIT', 0, ORPHAN_BATCH)
    if (keys.length === 0) break
    const { rows } = await db.query<{ object_key: string }>('SELECT DISTINCT object_key FROM recording_chunks WHERE object_key = ANY($1::text[])', [keys])
    const named = new Set(rows.map((row) => row.object_key))
    // A key not shaped as a chunk's was never written by the ingress: it leaves the ledger, its object (if any) untouched.
    const orphans = keys.filter((key) => !named.has(key) && isChunkObjectKey(key))
    if (orphans.length > 0) await objects.delete(orphans)
    await redis.zrem(ledger, ...keys)
    cleared.deleted += orphans.length
    cleared.kept += keys.length - orphans.length
    if (keys.length < ORPHAN_BATCH) break
  }
  return cleared
}

/** How many recordings are open (no close yet) across every project. */
export async function countOpen(db: Db): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM recordings WHERE closed_at IS NULL')
  return rows[0]!.n
}
