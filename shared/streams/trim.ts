/**
 * Trimming that never drops an entry a group still needs: each stream is cut below the smallest
 * id any of its groups has pending, or, for a group with nothing pending, below the entry after
 * the one it last received.
 */
import { EventEmitter } from 'node:events'
import type { Redis } from 'ioredis'
import { SECOND } from '../time.js'
import { compareIds, nextId, pairs } from './names.js'

/** Trims one stream as far as every group allows; returns how many entries were removed. */
export async function trimStream(redis: Redis, stream: string): Promise<number> {
  let rows: unknown[]
  try {
    rows = (await redis.xinfo('GROUPS', stream)) as unknown[]
  } catch {
    return 0
  }
  if (rows.length === 0) return 0 // nobody has read anything: nothing is safe to drop
  let floor: string | undefined
  for (const row of rows.map((r) => pairs(r as unknown[]))) {
    let needed = nextId(String(row['last-delivered-id']))
    if (Number(row.pending) > 0) {
      const summary = (await redis.xpending(stream, String(row.name))) as [number, string | null, ...unknown[]]
      if (summary[1] && compareIds(summary[1], needed) < 0) needed = summary[1]
    }
    if (floor === undefined || compareIds(needed, floor) < 0) floor = needed
  }
  return Number(await redis.xtrim(stream, 'MINID', floor!))
}

/** Trims a set of streams periodically; emits 'error' rather than throwing. */
export class StreamTrimmer extends EventEmitter {
  readonly #redis: Redis
  readonly #streams: readonly string[]
  readonly #intervalMs: number
  #timer: NodeJS.Timeout | undefined

  constructor(options: { redis: Redis; streams: readonly string[]; intervalMs?: number }) {
    super()
    this.#redis = options.redis
    this.#streams = options.streams
    this.#intervalMs = options.intervalMs ?? 10 * SECOND
  }

  start(): void {
    this.#timer = setInterval(() => void this.trimOnce(), this.#intervalMs)
    this.#timer.unref()
  }

  stop(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
  }

  /** One pass over every stream. */
  async trimOnce(): Promise<void> {
    for (const stream of this.#streams) {
      try {
        await trimStream(this.#redis, stream)
      } catch (error) {
        this.emit('error', error)
      }
    }
  }
}
