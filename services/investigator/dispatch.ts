/**
 * Dispatch of investigations and fixes: the row in PostgreSQL is the job, an entry on its stream
 * only says "run this one" (shared/jobs/job-stream.ts, one definition for writer and reader). It is
 * added after the row's transaction committed; if the process dies in between, the sweeper finds
 * the queued row past its lease and adds it again.
 */
import type { Redis } from 'ioredis'
import { jobStream } from '../../shared/jobs/index.js'
import type { StreamKeys } from '../../shared/redis.js'
import type { Orm } from '../../shared/db/orm.js'
import { openInvestigation, openInvestigations, type AdmitRequest } from './store/admissions.js'
import type { Investigation } from './store/entities.js'

/** An entry of stream:investigations: { investigation: <id> }. */
export const INVESTIGATION_ENTRY = jobStream('investigation')
/** An entry of stream:fixes: { fix: <id> }. */
export const FIX_ENTRY = jobStream('fix')

/** Adds the stream entry that makes a worker run investigation id. */
export async function dispatchInvestigation(redis: Redis, keys: StreamKeys, id: string): Promise<void> {
  await INVESTIGATION_ENTRY.dispatch(redis, keys.investigations, id)
}

/** Adds the stream entry that makes a worker build fix id. */
export async function dispatchFix(redis: Redis, keys: StreamKeys, id: string): Promise<void> {
  await FIX_ENTRY.dispatch(redis, keys.fixes, id)
}

/** Opens the next investigation and dispatches it; undefined when one is in flight already. */
export async function startInvestigation(orm: Orm, redis: Redis, keys: StreamKeys, request: AdmitRequest): Promise<Investigation | undefined> {
  const investigation = await openInvestigation(orm, request)
  if (investigation) await dispatchInvestigation(redis, keys, investigation.id)
  return investigation
}

/** Opens and dispatches the next investigation of each issue that has none in flight (admission's batch); answers those opened. */
export async function startInvestigations(orm: Orm, redis: Redis, keys: StreamKeys, requests: readonly AdmitRequest[]): Promise<Investigation[]> {
  const opened = await openInvestigations(orm, requests)
  await INVESTIGATION_ENTRY.dispatchAll(redis, keys.investigations, opened.map((investigation) => investigation.id))
  return opened
}
