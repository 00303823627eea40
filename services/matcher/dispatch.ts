/**
 * Dispatch of the matcher's jobs on stream:friction: the row in friction_jobs is the job, an entry
 * ({ scan | match | confirm: <id> }, one definition for writer and reader) only says "run this
 * one", added after the row's transaction committed. A pending row's lease_until says it was
 * dispatched and until when: NULL means never (a backfill's job waiting for its not_before, or a
 * live one whose dispatch a crash lost), and the sweep dispatches those once due (the job kit's
 * dispatchDueRows over FRICTION_DUE); a lapsed one is dispatched again by the lapsed-lease sweep.
 */
import type { Redis } from 'ioredis'
import type { Queryable } from '../../shared/db/index.js'
import { dispatchRows, jobStream, type DueTable, type JobStream } from '../../shared/jobs/index.js'
import type { StreamKeys } from '../../shared/redis.js'
import type { FrictionJob } from './store/entities.js'

export type FrictionJobKind = FrictionJob['kind']
export const FRICTION_JOB_KINDS: readonly FrictionJobKind[] = ['scan', 'match', 'confirm']

/** The entry of each kind: { scan: <id> }, { match: <id> }, { confirm: <id> }. */
export const FRICTION_ENTRIES: Readonly<Record<FrictionJobKind, JobStream>> = Object.freeze({ scan: jobStream('scan'), match: jobStream('match'), confirm: jobStream('confirm') })

/** friction_jobs as rows dispatched when due, each kind's entry by its kind column. */
export function frictionDue(keys: StreamKeys): DueTable {
  return { table: 'friction_jobs', queuedState: 'pending', stream: keys.friction, kindColumn: 'kind', entryOf: (kind) => FRICTION_ENTRIES[kind as FrictionJobKind] }
}

/** Adds one job's entry (the lapsed-lease sweep's dispatch: its row was marked already). */
export async function dispatchJob(redis: Redis, keys: StreamKeys, kind: FrictionJobKind, id: string): Promise<void> {
  await FRICTION_ENTRIES[kind].dispatch(redis, keys.friction, id)
}

/**
 * Dispatches committed pending jobs by id (a scan's new match jobs): each is marked dispatched for
 * leaseMs, then its entry added. A job claimed or dispatched already in the meantime is left alone.
 */
export function dispatchJobs(db: Queryable, redis: Redis, keys: StreamKeys, ids: readonly string[], leaseMs: number): Promise<number> {
  return dispatchRows(db, redis, frictionDue(keys), ids, leaseMs)
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
