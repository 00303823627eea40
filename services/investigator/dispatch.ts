/**
 * Dispatch of investigations: the row in PostgreSQL is the job, an entry on the investigations
 * stream only says "run this one". It is added after the row's transaction committed; if the
 * process dies in between, the sweeper finds the queued row past its lease and adds it again.
 */
import type { Redis } from 'ioredis'
import type { StreamKeys } from '../../shared/redis.js'
import type { Orm } from '../../shared/orm.js'
import { openInvestigation, type AdmitRequest } from './store/admissions.js'
import type { Investigation } from './store/entities.js'

/** Adds the stream entry that makes a worker run investigation id. */
export async function dispatchInvestigation(redis: Redis, keys: StreamKeys, id: string): Promise<void> {
  await redis.xadd(keys.investigations, '*', 'investigation', id)
}

/** Adds the stream entry that makes a worker build fix id. */
export async function dispatchFix(redis: Redis, keys: StreamKeys, id: string): Promise<void> {
  await redis.xadd(keys.fixes, '*', 'fix', id)
}

/** Opens the next investigation and dispatches it; undefined when one is in flight already. */
export async function startInvestigation(orm: Orm, redis: Redis, keys: StreamKeys, request: AdmitRequest): Promise<Investigation | undefined> {
  const investigation = await openInvestigation(orm, request)
  if (investigation) await dispatchInvestigation(redis, keys, investigation.id)
  return investigation
}

