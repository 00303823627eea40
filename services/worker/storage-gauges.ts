/**
 * Per-project storage gauges (docs/metrics.md "Storage"): the figures of the settings page's storage
 * panel, labelled by project id. A scrape never touches the database or Redis: one worker of the
 * fleet counts every project every STORAGE_GAUGES_EVERY_MS under a fleet-wide lock and shares the
 * figures through Redis (storage-figures.ts), every worker keeps the last ones in memory, and a
 * scrape reads those (the oldest event's age is worked out at the scrape from the counted
 * receipt). A fleet of N workers counts once per interval, not N times. Projects are the one
 * id label the metrics take: storage is a per-project question, and an install's projects are
 * bounded (STORAGE_GAUGE_PROJECTS at most).
 */
import { EventEmitter } from 'node:events'
import { PeriodicSweeper } from '../../shared/jobs/index.js'
import { Gauge } from '../../shared/metrics.js'
import { isRedisConnectionError } from '../../shared/redis.js'
import { MINUTE, SECOND } from '../../shared/time.js'
import { countFigures, GAUGE_EVENTS_CAP, getSharedFigures, shareFigures, type ProjectStorage, type StorageFigureDeps, type StorageFigures } from './storage-figures.js'

/** How often the fleet counts again: five minutes keeps a 10M-row project's scan off the hot minute. */
export const STORAGE_GAUGES_EVERY_MS = 5 * MINUTE
/** How often a worker reads the fleet's last count from Redis: one GET of a few dozen kB, so a new count shows within half a minute. */
export const STORAGE_FIGURES_REFRESH_MS = 30 * SECOND
/** Intervals the shared figures outlive their count: a missed count or two keeps them; a worker started after the fleet stopped counting finds none. */
const KEPT_INTERVALS = 3

let latest: ReadonlyMap<string, ProjectStorage> = new Map()

/** What this process's gauges serve from now on. */
function serve(figures: StorageFigures): void {
  latest = figures.projects
}

const labelNames = ['project'] as const
const fromLatest = (gauge: InstanceType<typeof Gauge<'project'>>, value: (counted: ProjectStorage) => number | undefined): void => {
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

export type StorageGaugeDeps = StorageFigureDeps

/** Counts every project's figures, shares them with the fleet for keepMs and serves them from this process's gauges. */
export async function countStorage(deps: StorageGaugeDeps, keepMs: number = KEPT_INTERVALS * STORAGE_GAUGES_EVERY_MS): Promise<StorageFigures> {
  const figures = await countAndShare(deps, keepMs)
  serve(figures)
  return figures
}

/** Counts every project's figures and shares them with the fleet for keepMs; serving them is the caller's. */
async function countAndShare(deps: StorageGaugeDeps, keepMs: number): Promise<StorageFigures> {
  const figures = await countFigures(deps)
  await shareFigures(deps.redis, deps.keys, figures, keepMs)
  return figures
}

export interface StorageGaugeTiming {
  /** How often the fleet counts (one worker, under the lock). */
  everyMs?: number
  /** How often this worker reads the fleet's last count. */
  refreshMs?: number
}

/**
 * A worker's storage gauges: each interval one worker of the fleet (whichever takes the lock; the
 * first try is at start) counts and shares the figures, and every worker reads the last shared
 * ones every refreshMs. Events: 'counted' when this worker counted, 'error' for a failed count or
 * read, 'outage' while Redis or PostgreSQL is away (their connections log that once); the last
 * figures stay served either way.
 */
export class StorageGauges extends EventEmitter {
  readonly #sweeper: PeriodicSweeper
  readonly #refreshMs: number
  #figures: StorageFigures | undefined
  #timer: NodeJS.Timeout | undefined
  #refreshing: Promise<void> | undefined

  constructor(private readonly deps: StorageGaugeDeps, { everyMs = STORAGE_GAUGES_EVERY_MS, refreshMs = STORAGE_FIGURES_REFRESH_MS }: StorageGaugeTiming = {}) {
    super()
    this.#refreshMs = refreshMs
    this.#sweeper = new PeriodicSweeper({
      redis: deps.redis,
      lockKey: deps.keys.storageGaugesSweep,
      everyMs,
      passes: [{ name: 'storage gauges', run: () => this.#count(KEPT_INTERVALS * everyMs) }],
    })
    this.#sweeper.on('error', (error: unknown) => void this.emit('error', error))
    this.#sweeper.on('outage', (error: unknown) => void this.emit('outage', error))
  }

  /** The figures this worker serves: its own count's or the fleet's last shared ones; undefined before either. */
  get figures(): StorageFigures | undefined {
    return this.#figures
  }

  start(): void {
    this.#sweeper.start({ now: true })
    this.#refresh()
    this.#timer = setInterval(() => this.#refresh(), this.#refreshMs)
    this.#timer.unref()
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer)
    await Promise.all([this.#sweeper.stop(), this.#refreshing])
  }

  async #count(keepMs: number): Promise<void> {
    const figures = await countAndShare(this.deps, keepMs)
    this.#adopt(figures)
    this.emit('counted', figures)
  }

  #refresh(): void {
    this.#refreshing ??= getSharedFigures(this.deps.redis, this.deps.keys)
      .then((figures) => figures && this.#adopt(figures))
      .catch((error: unknown) => void this.emit(isRedisConnectionError(error) ? 'outage' : 'error', error))
      .finally(() => (this.#refreshing = undefined))
  }

  /** Takes figures newer than the held ones (a read that raced this worker's own count never goes back). */
  #adopt(figures: StorageFigures): void {
    if (this.#figures && this.#figures.countedAt >= figures.countedAt) return
    this.#figures = figures
    serve(figures)
  }
}
