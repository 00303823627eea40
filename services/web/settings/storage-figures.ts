/**
 * The storage panel's figures: the project's stored events and their oldest (the grouper's read
 * face), its recordings' bytes (the recorder's) and the intake it refused or sampled in the last 24
 * hours (the Redis tallies). The database figures are counted at most once a minute per process
 * and project, so a page reloaded in a loop does not scan a big project's index each time; the
 * page says when they were counted. The Redis tallies are cheap and read at every view.
 */
import type { Redis } from 'ioredis'
import type { Queryable } from '../../../shared/db/index.js'
import { intakeLastDay } from '../../../shared/domain/intake-tally.js'
import type { StreamKeys } from '../../../shared/redis.js'
import { MINUTE } from '../../../shared/time.js'
import { getEventsStorage, type EventsStorage } from '../../grouper/read/storage.js'
import { getRecordingsStorage, type RecordingsStorage } from '../../recorder/read/storage.js'

/** How long counted figures are shown before they are counted again. */
export const STORAGE_FRESH_MS = MINUTE
/** Projects whose figures one process keeps at most (the oldest counted are forgotten first). */
const CACHED_PROJECTS = 1000

export interface StorageFigures {
  events: EventsStorage
  recordings: RecordingsStorage
  /** Events the ingress refused (429) and the grouper sampled, in the last 24 hours. */
  intake: { refused: number; sampled: number }
  /** When events and recordings were counted. */
  countedAt: Date
}

export interface StorageDeps {
  db: Queryable
  redis: Redis
  keys: StreamKeys
}

const counted = new Map<string, { events: EventsStorage; recordings: RecordingsStorage; countedAt: Date }>()

/** The project's figures, the database ones from this process's cache when under a minute old. */
export async function getStorageFigures(deps: StorageDeps, projectId: string, now: number = Date.now()): Promise<StorageFigures> {
  let stored = counted.get(projectId)
  if (!stored || now - stored.countedAt.getTime() >= STORAGE_FRESH_MS || now < stored.countedAt.getTime()) {
    const [events, recordings] = [await getEventsStorage(deps.db, projectId), await getRecordingsStorage(deps.db, projectId)]
    stored = { events, recordings, countedAt: new Date(now) }
    counted.delete(projectId)
    counted.set(projectId, stored)
    if (counted.size > CACHED_PROJECTS) counted.delete(counted.keys().next().value!)
  }
  const intake = await intakeLastDay(deps.redis, deps.keys, projectId, now)
  return { ...stored, intake }
}
