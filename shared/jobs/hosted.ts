/**
 * The hosted-service builder of an actor that runs jobs: its stream consumers (made with the stream
 * timing and the database outage waits every actor uses) and its sweeper, started and stopped
 * together, with what the worker's /health asks of a service (queue depth over its groups,
 * progress, fleet idleness, what it waits for). A consumer inside a long job counts as
 * progressing, not stuck; a stopping process aborts the jobs it runs so they are handed back.
 */
import { hostname } from 'node:os'
import type { Redis } from 'ioredis'
import type { StreamTiming } from '../config/index.js'
import { isDatabaseOutage, type Db } from '../db/index.js'
import type { Logger } from '../log.js'
import type { Orm } from '../db/orm.js'
import type { StreamKeys } from '../redis.js'
import type { HostedService } from '../service.js'
import { groupActivity, queueDepth, StreamConsumer, type ConsumerOptions } from '../streams/index.js'
import type { PeriodicSweeper } from './sweeper.js'

/** What the worker gives every actor that runs jobs (the digester, the matcher, the investigator). */
export interface JobActorDeps {
  db: Db
  orm: Orm
  redis: Redis
  keys: StreamKeys
  log: Logger
  timing: StreamTiming
}

/** What a host needs of its actor. */
export interface JobHostDeps {
  redis: Redis
  /** Its outage watch: a batch that met a database outage is held until the database answers. */
  db: Pick<Db, 'outage'>
  /** The actor's logger. */
  log: Logger
  timing: StreamTiming
}

/** A consumer's own options (the host gives the rest); what names it in the log (its group unless said). */
export type HostConsumerOptions = Omit<ConsumerOptions, 'redis' | 'leaseMs' | 'retryBaseMs' | 'maxAttempts' | 'isOutage' | 'untilRecovered'> & { what?: string }

/** A consumer and the stream and group it reads, for depth and idleness. */
export interface HostedConsumer {
  consumer: StreamConsumer
  stream: string
  group: string
}

export interface HostedParts {
  name: string
  consumers: readonly HostedConsumer[]
  sweeper?: PeriodicSweeper
  /** Starts watching what the service shows (its metrics sources) while it runs; answers how to stop. */
  watch?: () => () => void
  waitingFor: HostedService['waitingFor']
  details?: HostedService['details']
}

export class JobHost {
  /** This process's name among the actor's consumers and slot holders. */
  readonly name = `${hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
  #active = 0
  #stopping = new AbortController()
  #unwatch = (): void => undefined

  constructor(readonly deps: JobHostDeps) {}

  /** Aborted when the service stops (renewed on each start). */
  get stopping(): AbortSignal {
    return this.#stopping.signal
  }

  /** Runs a job, counted as work in progress while it runs. */
  async track<T>(job: () => Promise<T>): Promise<T> {
    this.#active++
    try {
      return await job()
    } finally {
      this.#active--
    }
  }

  /** A consumer of a stream with the host's timing and outage waits; its errors are logged. */
  consumer(options: HostConsumerOptions): HostedConsumer {
    const { what, ...own } = options
    const { redis, db, log, timing } = this.deps
    const consumer = new StreamConsumer({
      redis,
      leaseMs: timing.leaseMs,
      retryBaseMs: timing.retryBaseMs,
      maxAttempts: timing.maxAttempts,
      isOutage: isDatabaseOutage,
      untilRecovered: (error: unknown) => db.outage.untilBack(error),
      ...own,
    })
    consumer.on('error', (error: unknown) => log.error(`${what ?? own.group} consumer error`, { error }))
    return { consumer, stream: own.stream, group: own.group }
  }

  /** The HostedService of the parts, with this host's jobs counted as progress. */
  service(parts: HostedParts): HostedService {
    const consumers = parts.consumers.map((c) => c.consumer)
    const sum = (rows: Array<Record<'eligible' | 'heldBack' | 'deadLettered', number>>, key: 'eligible' | 'heldBack' | 'deadLettered'): number => rows.reduce((total, row) => total + row[key], 0)
    return {
      name: parts.name,
      start: async () => {
        this.#stopping = new AbortController()
        for (const consumer of consumers) await consumer.start()
        parts.sweeper?.start()
        this.#unwatch = parts.watch?.() ?? (() => undefined)
      },
      stop: async () => {
        this.#stopping.abort()
        this.#unwatch()
        await parts.sweeper?.stop()
        await Promise.all(consumers.map((consumer) => consumer.stop()))
      },
      depth: async () => {
        const depths = await Promise.all(parts.consumers.map((c) => queueDepth(this.deps.redis, c.stream, c.group)))
        return { eligible: sum(depths, 'eligible'), heldBack: sum(depths, 'heldBack'), deadLettered: sum(depths, 'deadLettered') }
      },
      lastProgressAt: () => (this.#active > 0 ? Date.now() : Math.min(...consumers.map((consumer) => consumer.lastProgressAt))),
      fleetIdleMs: async () => {
        if (this.#active > 0) return 0
        const groups = await Promise.all(parts.consumers.map((c) => groupActivity(this.deps.redis, c.stream, c.group)))
        return Math.min(...groups.map((group) => group.minIdleMs))
      },
      waitingFor: parts.waitingFor,
      ...(parts.details ? { details: parts.details } : {}),
    }
  }
}
