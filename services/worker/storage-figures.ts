/**
 * The per-project storage figures behind the storage gauges (docs/metrics.md "Storage"): counted by
 * one worker of the fleet each interval, then shared through Redis as one JSON value so every
 * worker serves the same figures without counting them itself. The value outlives a few intervals
 * only: figures nobody has refreshed for that long are gone rather than served forever.
 */
import type { Redis } from 'ioredis'
import type { Queryable } from '../../shared/db/index.js'
import { intakeLastDay } from '../../shared/domain/intake-tally.js'
import type { StreamKeys } from '../../shared/redis.js'
import { getEventsStorage } from '../grouper/read/storage.js'
import { getRecordingsStorage } from '../recorder/read/storage.js'
import { listProjectIds } from '../web/read/project-ids.js'

/** Projects reported at most, oldest first. */
export const STORAGE_GAUGE_PROJECTS = 1000
/** Rows counted per project at most: the background count may go further than the page's. */
export const GAUGE_EVENTS_CAP = 10_000_000

/** One project's figures as counted. */
export interface ProjectStorage {
  events: number
  oldestAt: Date | null
  recordingsBytes: number
  refused: number
  sampled: number
}

/** One count of every project: when it was made, and what it found. */
export interface StorageFigures {
  countedAt: Date
  projects: ReadonlyMap<string, ProjectStorage>
}

export interface StorageFigureDeps {
  db: Queryable
  redis: Redis
  keys: StreamKeys
}

/** Counts every project's figures (the database work the fleet does once per interval). */
export async function countFigures(deps: StorageFigureDeps): Promise<StorageFigures> {
  const projects = new Map<string, ProjectStorage>()
  for (const projectId of await listProjectIds(deps.db, STORAGE_GAUGE_PROJECTS)) {
    const events = await getEventsStorage(deps.db, projectId, GAUGE_EVENTS_CAP)
    const recordings = await getRecordingsStorage(deps.db, projectId)
    const intake = await intakeLastDay(deps.redis, deps.keys, projectId)
    projects.set(projectId, { events: events.events, oldestAt: events.oldestAt, recordingsBytes: recordings.bytes, ...intake })
  }
  return { countedAt: new Date(), projects }
}

/** The JSON form: times as ms since the epoch, projects as a list in the count's order. */
interface SharedForm {
  countedAt: number
  projects: { id: string; events: number; oldestAt: number | null; recordingsBytes: number; refused: number; sampled: number }[]
}

/** Writes figures for every worker to read, kept keepMs (a few intervals). */
export async function shareFigures(redis: Redis, keys: StreamKeys, figures: StorageFigures, keepMs: number): Promise<void> {
  const shared: SharedForm = {
    countedAt: figures.countedAt.getTime(),
    projects: [...figures.projects].map(([id, p]) => ({ id, ...p, oldestAt: p.oldestAt?.getTime() ?? null })),
  }
  await redis.set(keys.storageFigures, JSON.stringify(shared), 'PX', Math.max(1, Math.floor(keepMs)))
}

/** The fleet's last shared figures; undefined when none are kept (none counted yet, or not for a few intervals). */
export async function getSharedFigures(redis: Redis, keys: StreamKeys): Promise<StorageFigures | undefined> {
  const raw = await redis.get(keys.storageFigures)
  if (raw === null) return undefined
  const shared = JSON.parse(raw) as SharedForm
  const projects = new Map<string, ProjectStorage>()
  for (const { id, oldestAt, ...p } of shared.projects) projects.set(id, { ...p, oldestAt: oldestAt === null ? null : new Date(oldestAt) })
  return { countedAt: new Date(shared.countedAt), projects }
}
