/**
 * Per-project storage gauges (docs/metrics.md "Storage"): the figures of the settings page's storage
 * panel, labelled by project id. A scrape never touches the database: each worker counts every
 * project in the background every STORAGE_GAUGES_EVERY_MS and a scrape reads what was counted (the
 * oldest event's age is worked out at the scrape from the counted receipt). Projects are the one
 * id label the metrics take: storage is a per-project question, and an install's projects are
 * bounded (STORAGE_GAUGE_PROJECTS at most).
 */
import { EventEmitter } from 'node:events'
import type { Redis } from 'ioredis'
import type { Queryable } from '../../shared/db/index.js'
import { intakeLastDay } from '../../shared/domain/intake-tally.js'
import { Gauge } from '../../shared/metrics.js'
import type { StreamKeys } from '../../shared/redis.js'
import { MINUTE } from '../../shared/time.js'
import { getEventsStorage } from '../grouper/read/storage.js'
import { getRecordingsStorage } from '../recorder/read/storage.js'
import { listProjectIds } from '../web/read/project-ids.js'

/** How often a worker counts again: five minutes keeps a 10M-row project's scan off the hot minute. */
export const STORAGE_GAUGES_EVERY_MS = 5 * MINUTE
/** Projects reported at most, oldest first. */
export const STORAGE_GAUGE_PROJECTS = 1000
/** Rows counted per project at most: the background count may go further than the page's. */
export const GAUGE_EVENTS_CAP = 10_000_000

interface Counted {
  events: number
  oldestAt: Date | null
  recordingsBytes: number
  refused: number
  sampled: number
}

let latest: ReadonlyMap<string, Counted> = new Map()

const labelNames = ['project'] as const
const fromLatest = (gauge: InstanceType<typeof Gauge<'project'>>, value: (counted: Counted) => number | undefined): void => {
  gauge.reset()
  for (const [project, counted] of latest) {
    const v = value(counted)
    if (v !== undefined) gauge.set({ project }, v)
  }
}

new Gauge({
  name: 'svc_project_events_stored',
  help: `Events stored per project (every row, slim sampled ones too), counted every 5 minutes up to ${GAUGE_EVENTS_CAP}.`,
  labelNames,
  collect() {
    fromLatest(this, (c) => c.events)
  },
})
new Gauge({
  name: 'svc_project_oldest_event_age_seconds',
  help: "Age of each project's oldest stored event at the scrape (its receipt counted every 5 minutes); absent without events.",
  labelNames,
  collect() {
    const now = Date.now()
    fromLatest(this, (c) => (c.oldestAt ? Math.max(0, (now - c.oldestAt.getTime()) / 1000) : undefined))
  },
})
new Gauge({
  name: 'svc_project_recordings_bytes',
  help: "Bytes each project's kept recordings take in the object store, counted every 5 minutes.",
  labelNames,
  collect() {
    fromLatest(this, (c) => c.recordingsBytes)
  },
})
new Gauge({
  name: 'svc_project_intake_refused_day',
  help: 'Events each project had refused at intake (429) in the last 24 hours, summed every 5 minutes.',
  labelNames,
  collect() {
    fromLatest(this, (c) => c.refused)
  },
})
new Gauge({
  name: 'svc_project_intake_sampled_day',
  help: 'Events of each project counted but not stored whole (sampled) in the last 24 hours, summed every 5 minutes.',
  labelNames,
  collect() {
    fromLatest(this, (c) => c.sampled)
  },
})

export interface StorageGaugeDeps {
  db: Queryable
  redis: Redis
  keys: StreamKeys
}

/** Counts every project's storage figures once; what the gauges show from then on. */
export async function countStorage(deps: StorageGaugeDeps): Promise<void> {
  const next = new Map<string, Counted>()
  for (const projectId of await listProjectIds(deps.db, STORAGE_GAUGE_PROJECTS)) {
    const events = await getEventsStorage(deps.db, projectId, GAUGE_EVENTS_CAP)
    const recordings = await getRecordingsStorage(deps.db, projectId)
    const intake = await intakeLastDay(deps.redis, deps.keys, projectId)
    next.set(projectId, { events: events.events, oldestAt: events.oldestAt, recordingsBytes: recordings.bytes, ...intake })
  }
  latest = next
}

/** The background count: start() counts at once and then every interval; a failed count is an 'error' event, the last figures stay. */
export class StorageGauges extends EventEmitter {
  #timer: NodeJS.Timeout | undefined
  #running: Promise<void> | undefined

  constructor(private readonly deps: StorageGaugeDeps, private readonly everyMs: number = STORAGE_GAUGES_EVERY_MS) {
    super()
  }

  start(): void {
    const tick = (): void => {
      this.#running ??= countStorage(this.deps)
        .catch((error: unknown) => void this.emit('error', error))
        .finally(() => (this.#running = undefined))
    }
    tick()
    this.#timer = setInterval(tick, this.everyMs)
    this.#timer.unref()
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer)
    await this.#running
  }
}
