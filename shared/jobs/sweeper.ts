/**
 * A fleet-wide periodic sweeper: every worker runs one, and each interval one of them (whichever
 * takes the interval's Redis lock first) runs the passes, so a fleet of N workers sweeps once per
 * interval, not N times. The lock lapses with the interval, so a worker that died holding it
 * delays the next pass by one interval at most. Passes run one after another; one that fails is
 * reported (an 'error' event, or 'outage' while Redis or PostgreSQL is away) and the rest still run. The leased jobs' lapsed-lease sweep is one
 * such pass; a daily schedule (the digest) is another.
 */
import { EventEmitter } from 'node:events'
import type { Redis } from 'ioredis'
import { isDatabaseOutage } from '../db/index.js'
import { isRedisConnectionError } from '../redis.js'

export interface SweepPass {
  readonly name: string
  run(): Promise<unknown>
}

export interface SweeperOptions {
  redis: Redis
  /** The fleet's lock for this sweeper (one per actor). */
  lockKey: string
  everyMs: number
  passes: readonly SweepPass[]
}

export class PeriodicSweeper extends EventEmitter {
  #timer: NodeJS.Timeout | undefined
  #running: Promise<void> | undefined
  readonly #holder = `${process.pid}-${Math.random().toString(36).slice(2, 10)}`

  constructor(private readonly options: SweeperOptions) {
    super()
  }

  /** Ticks every interval; with now, the first tick (lock and all) at once too, for passes whose result a worker wants from its start. */
  start({ now = false }: { now?: boolean } = {}): void {
    const tick = (): void => {
      this.#running ??= this.#tick().finally(() => (this.#running = undefined))
    }
    if (now) tick()
    this.#timer = setInterval(tick, this.options.everyMs)
    this.#timer.unref()
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer)
    await this.#running
  }

  /** Runs every pass now, lock or not (tests, and a worker asked to sweep at once). */
  async sweepNow(): Promise<void> {
    for (const pass of this.options.passes) {
      try {
        await pass.run()
      } catch (error) {
        this.#failed(Object.assign(error instanceof Error ? error : new Error(String(error)), { pass: pass.name }))
      }
    }
  }

  async #tick(): Promise<void> {
    let mine: string | null
    try {
      // A little under the interval, so the next tick (of any worker) finds it free.
      mine = await this.options.redis.set(this.options.lockKey, this.#holder, 'PX', Math.max(1, Math.floor(this.options.everyMs * 0.9)), 'NX')
    } catch (error) {
      this.#failed(error)
      return
    }
    if (mine === 'OK') await this.sweepNow()
  }

  /**
   * A pass that failed: an 'error' event, or an 'outage' one when Redis or PostgreSQL is away,
   * which their connections already report once each (the next interval tries again).
   */
  #failed(error: unknown): void {
    this.emit(isRedisConnectionError(error) || isDatabaseOutage(error) ? 'outage' : 'error', error)
  }
}
