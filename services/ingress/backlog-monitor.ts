/**
 * Back-pressure: a cached reading of the grouper's backlog, so no request pays a Redis call for it.
 * The stream counts entries and an entry packs the events of one ingress turn, so the backlog in
 * events is the entries times the events per entry the queue has been writing lately.
 */
import type { Redis } from 'ioredis'
import { pairs } from '../../shared/streams/names.js'

/** Reads how far the grouper is behind, a few times a second, for back-pressure decisions. */
export class BacklogMonitor {
  readonly #redis: Redis
  readonly #stream: string
  readonly #group: string
  readonly #limit: number
  readonly #eventsPerEntry: () => number
  #backlog = 0
  #timer: NodeJS.Timeout | undefined

  constructor(redis: Redis, stream: string, group: string, limit: number, eventsPerEntry: () => number = () => 1) {
    this.#redis = redis
    this.#stream = stream
    this.#group = group
    this.#limit = limit
    this.#eventsPerEntry = eventsPerEntry
  }

  /** True when the group's undelivered plus unacked events (estimated from entries) pass the limit. */
  get full(): boolean {
    return this.#backlog * Math.max(1, this.#eventsPerEntry()) > this.#limit
  }

  /** Undelivered plus unacked entries. */
  get backlog(): number {
    return this.#backlog
  }

  start(intervalMs = 250): void {
    const tick = (): void => {
      this.refresh().catch(() => {})
    }
    tick()
    this.#timer = setInterval(tick, intervalMs)
    this.#timer.unref()
  }

  stop(): void {
    clearInterval(this.#timer)
  }

  /** Reads the group's lag and pending count once. */
  async refresh(): Promise<void> {
    let groups: unknown[]
    try {
      groups = (await this.#redis.xinfo('GROUPS', this.#stream)) as unknown[]
    } catch {
      this.#backlog = 0 // no stream yet: nothing waiting
      return
    }
    for (const raw of groups) {
      const info = pairs(raw as unknown[])
      if (info.name !== this.#group) continue
      const lag = info.lag === null || info.lag === undefined ? Number(await this.#redis.xlen(this.#stream)) : Number(info.lag)
      this.#backlog = lag + Number(info.pending ?? 0)
      return
    }
    // No grouper group yet: everything on the stream is waiting for it.
    this.#backlog = Number(await this.#redis.xlen(this.#stream))
  }
}
