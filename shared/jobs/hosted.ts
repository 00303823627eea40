/**
 * The hosted-service builder of an actor that runs jobs: its stream consumers and its sweeper,
 * started and stopped together, with what the worker's /health asks of a service (queue depth over
 * its groups, progress, fleet idleness, what it waits for). A consumer inside a long job counts as
 * progressing, not stuck; a stopping process aborts the jobs it runs so they are handed back.
 */
import type { Redis } from 'ioredis'
import type { HostedService } from '../service.js'
import { groupActivity, queueDepth, type StreamConsumer } from '../streams/index.js'
import type { PeriodicSweeper } from './sweeper.js'

/** A consumer and the stream and group it reads, for depth and idleness. */
export interface HostedConsumer {
  consumer: StreamConsumer
  stream: string
  group: string
}

export interface HostedParts {
  name: string
  redis: Redis
  consumers: readonly HostedConsumer[]
  sweeper?: PeriodicSweeper
  /** Starts watching what the service shows (its metrics sources) while it runs; answers how to stop. */
  watch?: () => () => void
  waitingFor: HostedService['waitingFor']
  details?: HostedService['details']
}

export class JobHost {
  #active = 0
  #stopping = new AbortController()
  #unwatch = (): void => undefined

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
        const depths = await Promise.all(parts.consumers.map((c) => queueDepth(parts.redis, c.stream, c.group)))
        return { eligible: sum(depths, 'eligible'), heldBack: sum(depths, 'heldBack'), deadLettered: sum(depths, 'deadLettered') }
      },
      lastProgressAt: () => (this.#active > 0 ? Date.now() : Math.min(...consumers.map((consumer) => consumer.lastProgressAt))),
      fleetIdleMs: async () => {
        if (this.#active > 0) return 0
        const groups = await Promise.all(parts.consumers.map((c) => groupActivity(parts.redis, c.stream, c.group)))
        return Math.min(...groups.map((group) => group.minIdleMs))
      },
      waitingFor: parts.waitingFor,
      ...(parts.details ? { details: parts.details } : {}),
    }
  }
}
