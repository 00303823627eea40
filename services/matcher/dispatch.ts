/**
 * Dispatch of the matcher's jobs on stream:friction: the row in friction_jobs is the job, an entry
 * ({ scan | match | confirm: <id> }, one definition for writer and reader) only says "run this
 * one", added after the row's transaction committed. A pending row's lease_until says it was
 * dispatched and until when: NULL means never (a backfill's job waiting for its not_before, or a
 * live one whose dispatch a crash lost), and the sweeper dispatches those once due; a lapsed one
 * is dispatched again by the lapsed-lease sweep. Marking comes before the entry, so a dispatch that
 * fails after it is only late, never lost.
 */
import type { Redis } from 'ioredis'
import type { Queryable } from '../../shared/db.js'
import { jobStream, type JobStream } from '../../shared/jobs/index.js'
import type { StreamKeys } from '../../shared/redis.js'
import type { StreamEntry } from '../../shared/streams/index.js'
import type { FrictionJob } from './store/entities.js'

export type FrictionJobKind = FrictionJob['kind']
export const FRICTION_JOB_KINDS: readonly FrictionJobKind[] = ['scan', 'match', 'confirm']

/** The entry of each kind: { scan: <id> }, { match: <id> }, { confirm: <id> }. */
export const FRICTION_ENTRIES: Readonly<Record<FrictionJobKind, JobStream>> = Object.freeze({ scan: jobStream('scan'), match: jobStream('match'), confirm: jobStream('confirm') })

/** The job an entry names (undefined: none, such an entry runs nothing). */
export function jobOfEntry(entry: StreamEntry): { kind: FrictionJobKind; id: string } | undefined {
  for (const kind of FRICTION_JOB_KINDS) {
    const id = FRICTION_ENTRIES[kind].idOf(entry)
    if (id !== '') return { kind, id }
  }
  return undefined
}

/** Adds one job's entry (the lapsed-lease sweep's dispatch: its row was marked already). */
export async function dispatchJob(redis: Redis, keys: StreamKeys, kind: FrictionJobKind, id: string): Promise<void> {
  await FRICTION_ENTRIES[kind].dispatch(redis, keys.friction, id)
}

/** Adds the entries of rows marked dispatched, in one pipeline. */
async function addEntries(redis: Redis, keys: StreamKeys, jobs: ReadonlyArray<{ id: string; kind: FrictionJobKind }>): Promise<void> {
  if (jobs.length === 0) return
  const pipeline = redis.pipeline()
  for (const job of jobs) pipeline.xadd(keys.friction, '*', FRICTION_ENTRIES[job.kind].field, job.id)
  for (const [error] of (await pipeline.exec()) ?? []) if (error) throw error
}

/**
 * Dispatches committed pending jobs by id (a scan's new match jobs): each is marked dispatched for
 * leaseMs, then its entry added. A job claimed or dispatched already in the meantime is left alone.
 */
export async function dispatchJobs(db: Queryable, redis: Redis, keys: StreamKeys, ids: readonly string[], leaseMs: number): Promise<number> {
  if (ids.length === 0) return 0
  const { rows } = await db.query<{ id: string; kind: FrictionJobKind }>(
    `UPDATE friction_jobs SET lease_until = now() + make_interval(secs => $2), version = version + 1, updated_at = now()
      WHERE id = ANY($1::uuid[]) AND state = 'pending' AND lease_until IS NULL
      RETURNING id, kind`,
    [ids, leaseMs / 1000],
  )
  await addEntries(redis, keys, rows)
  return rows.length
}

/**
 * Dispatches up to limit pending jobs of kinds that were never dispatched and are due (not_before
 * passed: a backfill's are spaced by its rate), oldest due first; answers how many.
 */
export async function dispatchDue(db: Queryable, redis: Redis, keys: StreamKeys, kinds: readonly FrictionJobKind[], leaseMs: number, limit: number): Promise<number> {
  if (kinds.length === 0) return 0
  const { rows } = await db.query<{ id: string; kind: FrictionJobKind }>(
    `UPDATE friction_jobs SET lease_until = now() + make_interval(secs => $2), version = version + 1, updated_at = now()
      WHERE id IN (SELECT id FROM friction_jobs
                    WHERE state = 'pending' AND lease_until IS NULL AND not_before <= now() AND kind = ANY($1::text[])
                    ORDER BY not_before LIMIT $3 FOR UPDATE SKIP LOCKED)
      RETURNING id, kind`,
    [kinds, leaseMs / 1000, limit],
  )
  await addEntries(redis, keys, rows)
  return rows.length
}

/** Queues a ticket's confirm job (none when one is pending or claimed); answers its id when new. */
export async function queueConfirm(db: Queryable, ticket: { projectId: string; environmentId: string | null; id: string }, source: 'live' | 'backfill', notBefore = new Date()): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO friction_jobs (kind, project_id, environment_id, subject, source, not_before) VALUES ('confirm', $1, $2, $3, $4, $5)
     ON CONFLICT (kind, subject) WHERE state IN ('pending', 'claimed') DO NOTHING RETURNING id`,
    [ticket.projectId, ticket.environmentId, ticket.id, source, notBefore],
  )
  return rows[0]?.id
}
