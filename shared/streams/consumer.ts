/**
 * A consumer in a group: reads batches from the stream and the group's retry stream, hands them to
 * the handler, and acknowledges only after the handler resolved (its writes committed). A failed
 * batch is retried entry by entry; a failed entry waits out a backoff in the group's delayed set
 * (acknowledged on the stream, so the lease reclaim cannot take it early) and is dead-lettered
 * after its last attempt. Entries a dead consumer left pending are reclaimed after the lease.
 */
import { EventEmitter } from 'node:events'
import type { Redis } from 'ioredis'
import { TIMING } from '../config.js'
import { SECOND, sleep } from '../time.js'
import { groupKeys, type GroupKeys } from './names.js'

export interface StreamEntry {
  id: string
  fields: Record<string, string>
  /** 1 on first delivery; counts deliveries, including retries and reclaims. */
  attempt: number
  /** The stream it was read from (the main stream or the group's retry stream). */
  source: string
  /** Id on the main stream; differs from id for an entry read from the retry stream. */
  origin: string
}

export interface ConsumerOptions {
  redis: Redis
  stream: string
  group: string
  consumer: string
  handler: (entries: StreamEntry[]) => Promise<void>
  /** Entries per read, or a function asked before each read (a handler that packs many items per entry may want fewer). */
  batchSize?: number | (() => number)
  blockMs?: number
  leaseMs?: number
  retryBaseMs?: number
  retryCapMs?: number
  maxAttempts?: number
  /**
   * True for a failure of what the handler depends on (the database down), not of the entries:
   * the batch is then held and tried again as it is, spending none of its attempts, so an outage
   * longer than the backoff does not dead-letter everything that arrived during it.
   */
  isOutage?: (error: unknown) => boolean
  /**
   * The parts of an entry that carries several items (a packed entry), each as the fields of an
   * entry of its own; undefined for an entry that cannot be split. An entry that fails on its own
   * is replaced by its parts on the group's retry path (same attempt count), so the item at fault
   * is retried and dead-lettered alone instead of taking the others with it.
   */
  split?: (entry: StreamEntry) => Array<Record<string, string>> | undefined
}

// Moves due entries from the delayed set to the retry stream, atomically, so two consumers
// running it at once cannot move one entry twice.
const MOVE_DUE_LUA = `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, item in ipairs(due) do
  local entry = cjson.decode(item)
  local args = {}
  for k, v in pairs(entry.f) do table.insert(args, k); table.insert(args, v) end
  table.insert(args, '__attempt'); table.insert(args, tostring(entry.a))
  table.insert(args, '__origin'); table.insert(args, entry.o)
  redis.call('XADD', KEYS[2], '*', unpack(args))
  redis.call('ZREM', KEYS[1], item)
end
return #due
`

type Reply = Array<[string, Array<[string, string[]]>]> | null

export class StreamConsumer extends EventEmitter {
  readonly #o: Required<Omit<ConsumerOptions, 'redis' | 'isOutage' | 'split' | 'batchSize'>>
  readonly #batchSize: () => number
  readonly #isOutage: (error: unknown) => boolean
  readonly #split: ConsumerOptions['split']
  /** A batch an outage interrupted, tried again before anything new is read. */
  #held: StreamEntry[] | undefined
  readonly #redis: Redis
  readonly #keys: GroupKeys
  #reader: Redis | undefined
  #running = false
  #loop: Promise<void> | undefined
  #lastProgressAt = Date.now()
  #lastReclaimAt = 0
  #lastMoveAt = 0

  constructor(options: ConsumerOptions) {
    super()
    this.#redis = options.redis
    this.#split = options.split
    this.#o = {
      stream: options.stream,
      group: options.group,
      consumer: options.consumer,
      handler: options.handler,
      blockMs: options.blockMs ?? 1000,
      leaseMs: options.leaseMs ?? TIMING.lease,
      retryBaseMs: options.retryBaseMs ?? TIMING.retryBase,
      retryCapMs: options.retryCapMs ?? TIMING.retryCap,
      maxAttempts: options.maxAttempts ?? TIMING.maxAttempts,
    }
    const batchSize = options.batchSize ?? 500
    this.#batchSize = typeof batchSize === 'number' ? () => batchSize : batchSize
    this.#isOutage = options.isOutage ?? (() => false)
    this.#keys = groupKeys(options.stream, options.group)
    this.#redis.defineCommand('svcMoveDue', { numberOfKeys: 2, lua: MOVE_DUE_LUA })
  }

  /** When the read loop last completed a turn (ms epoch). */
  get lastProgressAt(): number {
    return this.#lastProgressAt
  }

  /** Starts the read loop. */
  async start(): Promise<void> {
    if (this.#running) return
    // Blocking reads need their own connection, or they would stall every other command.
    this.#reader = this.#redis.duplicate({ enableAutoPipelining: false })
    this.#running = true
    this.#loop = this.#run()
  }

  /** Stops reading, lets the batch in flight finish and acknowledge, then closes the reader. */
  async stop(): Promise<void> {
    if (!this.#running) return
    this.#running = false
    await this.#loop
    this.#reader?.disconnect()
    this.#reader = undefined
  }

  async #run(): Promise<void> {
    let failures = 0
    while (this.#running) {
      try {
        await this.#turn()
        failures = 0
      } catch (error) {
        failures++
        this.emit('error', error)
        // A Redis or handler outage must not spin: back off up to 5 s, then try again.
        if (this.#running) await sleep(Math.min(5 * SECOND, 100 * 2 ** failures))
      }
      this.#lastProgressAt = Date.now()
    }
  }

  async #turn(): Promise<void> {
    if (this.#held) {
      const held = this.#held
      this.#held = undefined
      return this.#process(held)
    }
    const now = Date.now()
    if (now - this.#lastMoveAt >= Math.min(SECOND, this.#o.retryBaseMs / 4)) {
      this.#lastMoveAt = now
      await (this.#redis as Redis & { svcMoveDue(a: string, b: string, now: number, limit: number): Promise<number> }).svcMoveDue(this.#keys.delayed, this.#keys.retry, now, this.#batchSize())
    }
    if (now - this.#lastReclaimAt >= this.#o.leaseMs / 2) {
      this.#lastReclaimAt = now
      await this.#reclaim()
    }
    const reply = (await this.#reader!.xreadgroup(
      'GROUP', this.#o.group, this.#o.consumer,
      'COUNT', this.#batchSize(),
      'BLOCK', this.#o.blockMs,
      'STREAMS', this.#o.stream, this.#keys.retry, '>', '>',
    )) as Reply
    if (!reply) return
    const entries: StreamEntry[] = []
    for (const [source, rows] of reply) {
      for (const [id, flat] of rows) entries.push(toEntry(source, id, flat, 1))
    }
    if (entries.length > 0) await this.#process(entries)
  }

  async #reclaim(): Promise<void> {
    for (const source of [this.#o.stream, this.#keys.retry]) {
      let cursor = '0-0'
      do {
        const [next, rows] = (await this.#redis.xautoclaim(source, this.#o.group, this.#o.consumer, this.#o.leaseMs, cursor, 'COUNT', this.#batchSize())) as [string, Array<[string, string[]] | null>]
        cursor = next
        const claimed = rows.filter((row): row is [string, string[]] => row !== null && Array.isArray(row[1]))
        if (claimed.length === 0) continue
        const counts = await this.#deliveryCounts(source, claimed.map(([id]) => id))
        const entries = claimed.map(([id, flat]) => toEntry(source, id, flat, counts.get(id) ?? 2))
        // An entry that keeps killing its consumer is dead-lettered, not reclaimed forever.
        const over = entries.filter((e) => e.attempt > this.#o.maxAttempts)
        for (const entry of over) await this.#deadLetter(entry, new Error(`delivered ${entry.attempt} times without being acknowledged`))
        const rest = entries.filter((e) => e.attempt <= this.#o.maxAttempts)
        if (rest.length > 0) await this.#process(rest)
      } while (cursor !== '0-0' && this.#running)
    }
  }

  async #deliveryCounts(source: string, ids: string[]): Promise<Map<string, number>> {
    const sorted = [...ids].sort()
    const rows = (await this.#redis.xpending(source, this.#o.group, sorted[0]!, sorted.at(-1)!, ids.length * 2, this.#o.consumer)) as Array<[string, string, number, number]>
    return new Map(rows.map(([id, , , count]) => [id, Number(count)]))
  }

  async #process(entries: StreamEntry[]): Promise<void> {
    try {
      await this.#o.handler(entries)
      await this.#ack(entries)
      return
    } catch (error) {
      if (this.#isOutage(error)) {
        this.#held = entries
        throw error // the read loop backs off, then this batch is tried again as it is
      }
      // Otherwise: isolate the entries that fail from those that do not.
    }
    for (const [i, entry] of entries.entries()) {
      try {
        await this.#o.handler([entry])
        await this.#ack([entry])
      } catch (error) {
        if (this.#isOutage(error)) {
          this.#held = entries.slice(i)
          throw error
        }
        const parts = this.#split?.(entry)
        if (parts && parts.length > 1) await this.#splitUp(entry, parts)
        else await this.#fail(entry, error as Error)
      }
    }
  }

  async #ack(entries: StreamEntry[]): Promise<void> {
    const multi = this.#redis.multi()
    for (const entry of entries) {
      multi.xack(entry.source, this.#o.group, entry.id)
      if (entry.source === this.#keys.retry) multi.xdel(entry.source, entry.id)
    }
    await multi.exec()
  }

  async #fail(entry: StreamEntry, error: Error): Promise<void> {
    if (entry.attempt >= this.#o.maxAttempts) return this.#deadLetter(entry, error)
    const delay = Math.min(this.#o.retryCapMs, this.#o.retryBaseMs * 2 ** (entry.attempt - 1)) * (0.8 + Math.random() * 0.4)
    const item = JSON.stringify({ f: entry.fields, a: entry.attempt + 1, o: entry.origin })
    const multi = this.#redis.multi().zadd(this.#keys.delayed, Date.now() + Math.round(delay), item).xack(entry.source, this.#o.group, entry.id)
    if (entry.source === this.#keys.retry) multi.xdel(entry.source, entry.id)
    await multi.exec()
    this.emit('retry', { id: entry.origin, attempt: entry.attempt, delayMs: Math.round(delay), error })
  }

  /** Replaces entry by its parts, due at once on the retry path, with the attempts it has used. */
  async #splitUp(entry: StreamEntry, parts: Array<Record<string, string>>): Promise<void> {
    const now = Date.now()
    const multi = this.#redis.multi()
    for (const f of parts) multi.zadd(this.#keys.delayed, now, JSON.stringify({ f, a: entry.attempt, o: entry.origin }))
    multi.xack(entry.source, this.#o.group, entry.id)
    if (entry.source === this.#keys.retry) multi.xdel(entry.source, entry.id)
    await multi.exec()
    this.emit('split', { id: entry.origin, parts: parts.length })
  }

  async #deadLetter(entry: StreamEntry, error: Error): Promise<void> {
    const fields = Object.entries(entry.fields).flat()
    const multi = this.#redis
      .multi()
      .xadd(this.#keys.dead, '*', ...fields, '__origin', entry.origin, '__group', this.#o.group, '__attempts', String(entry.attempt), '__error', String(error.message).slice(0, 2000))
      .xack(entry.source, this.#o.group, entry.id)
    if (entry.source === this.#keys.retry) multi.xdel(entry.source, entry.id)
    await multi.exec()
    this.emit('dead', { id: entry.origin, attempt: entry.attempt, error })
  }
}

function toEntry(source: string, id: string, flat: string[], deliveries: number): StreamEntry {
  const fields: Record<string, string> = {}
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!
  let attempt = deliveries
  const carried = fields.__attempt
  const origin = fields.__origin ?? id
  if (carried !== undefined) {
    // A retried entry carries the attempt it is on; redeliveries of it add to that.
    attempt = Number(carried) + deliveries - 1
    delete fields.__attempt
    delete fields.__origin
  }
  return { id, fields, attempt, source, origin }
}
