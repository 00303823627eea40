/**
 * Wake-ups for long polls through Redis pub/sub: a held request listens on a channel and is woken
 * when another process publishes there (approval, a stored event, a browser's first ping). One
 * subscriber connection per process; a channel is subscribed while anyone listens on it.
 */
import type { Redis } from 'ioredis'
import { watchConnection } from '../../../shared/redis.js'

export class WakeHub {
  readonly #sub: Redis
  readonly #listeners = new Map<string, Set<() => void>>()
  readonly #ready = new Map<string, Promise<unknown>>()

  constructor(redis: Redis) {
    // A subscribed connection can run nothing else; ioredis resubscribes after a reconnect.
    this.#sub = watchConnection(redis.duplicate({ enableAutoPipelining: false }))
    this.#sub.on('error', () => {}) // reconnects on its own; a held poll still ends at its deadline
    this.#sub.on('message', (channel: string) => {
      for (const fn of this.#listeners.get(channel) ?? []) fn()
    })
  }

  /** Calls fn on every wake of channel until the returned function is called; resolves once subscribed. */
  async listen(channel: string, fn: () => void): Promise<() => void> {
    let set = this.#listeners.get(channel)
    if (!set) {
      set = new Set()
      this.#listeners.set(channel, set)
      this.#ready.set(channel, this.#sub.subscribe(channel))
    }
    set.add(fn)
    await this.#ready.get(channel)
    return () => {
      set.delete(fn)
      if (set.size === 0 && this.#listeners.get(channel) === set) {
        this.#listeners.delete(channel)
        this.#ready.delete(channel)
        void this.#sub.unsubscribe(channel).catch(() => {})
      }
    }
  }

  /** Closes the subscriber connection. */
  close(): void {
    this.#sub.disconnect()
  }
}
