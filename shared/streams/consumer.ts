/**
 * A consumer in a group: reads batches from the stream and the group's retry stream, hands them to
 * the handler, and acknowledges only after the handler resolved (its writes committed). A failed
 * batch is retried entry by entry; a failed entry waits out a backoff in the group's delayed set
 * (acknowledged on the stream, so the lease reclaim cannot take it early) and is dead-lettered
 * after its last attempt. Entries a dead consumer left pending are reclaimed after the lease, which
 * a live consumer renews for everything it holds (lease.ts). A batch that fails because a
 * dependency is down is held, at no cost in attempts, until the dependency answers again.
 */
import { EventEmitter } from 'node:events'
import type { Redis } from 'ioredis'
import { TIMING } from '../config/index.js'
import { isRedisConnectionError, watchConnection } from '../redis.js'
import { MINUTE, SECOND, sleep } from '../time.js'
import { toEntry, type HandlerContext, type StreamEntry } from './entry.js'
import { Held, HoldPolicy } from './holds.js'
import { LeaseKeeper } from './lease.js'
import { instrumentConsumer, timeBatches } from './metrics.js'
import { pruneConsumers } from './groups.js'
import { groupKeys, type GroupKeys } from './names.js'
import { reclaimable } from './reclaim.js'
import { acknowledge, deadLetter, delayRetry, moveDue, replaceByParts } from './settle.js'

export type { HandlerContext, StreamEntry } from './entry.js'

export interface ConsumerOptions {
  redis: Redis
  stream: string
  group: string
  consumer: string
  handler: (entries: StreamEntry[], context: HandlerContext) => Promise<void>
  /** Entries per read, or a function asked before each read (a handler that packs many items per entry may want fewer). */
  batchSize?: number | (() => number)
  blockMs?: number
  /** How long an entry may go unrenewed before another consumer takes it; renewed every third of it. */
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
  /** Resolves when the dependency an outage took away answers again; without it a held batch is retried every second. */
  untilRecovered?: (error: unknown) => Promise<void>
  /**
   * The parts of an entry that carries several items (a packed entry), each as the fields of an
   * entry of its own; undefined for an entry that cannot be split. An entry that fails on its own
   * is replaced by its parts on the group's retry path (same attempt count), so the item at fault
   * is retried and dead-lettered alone instead of taking the others with it.
   */
  split?: (entry: StreamEntry) => Array<Record<string, string>> | undefined
  /**
   * A batch that fails is handled again entry by entry at once, which also retries a lone entry
   * once (the default: a transient failure often passes). false sends a failed lone entry straight
   * to the stream's retry: for handlers whose every run counts as an attempt (an investigation).
   */
  rerunLoneEntry?: boolean
}

/** A consumer that holds nothing and was not seen this long is gone (a live one reads every second). */
const FORGET_CONSUMERS_AFTER = 10 * MINUTE

type Reply = Array<[string, Array<[string, string[]]>]> | null

export class StreamConsumer extends EventEmitter {
  readonly #o: Required<Omit<ConsumerOptions, 'redis' | 'isOutage' | 'untilRecovered' | 'split' | 'batchSize' | 'rerunLoneEntry'>>
  readonly #batchSize: () => number
  readonly #holdPolicy: HoldPolicy
  readonly #split: ConsumerOptions['split']
  readonly #rerunLone: boolean
  /** A batch an outage interrupted, tried again before anything new is read. */
  #held: StreamEntry[] | undefined
  readonly #redis: Redis
  readonly #keys: GroupKeys
  readonly #lease: LeaseKeeper
  readonly #metrics: ReturnType<typeof instrumentConsumer>
  #reader: Redis | undefined
  #running = false
  /** Aborts when stop() is called, ending any wait of the loop at once. */
  #stopping = new AbortController()
  #loop: Promise<void> | undefined
  #lastProgressAt = Date.now()
  #lastReclaimAt = 0
  #lastMoveAt = 0

  constructor(options: ConsumerOptions) {
    super()
    this.#redis = options.redis
    this.#split = options.split
    this.#rerunLone = options.rerunLoneEntry ?? true
    this.#o = {
      stream: options.stream,
      group: options.group,
      consumer: options.consumer,
      handler: timeBatches(options.group, options.handler),
      blockMs: options.blockMs ?? 1000,
      leaseMs: options.leaseMs ?? TIMING.lease,
      retryBaseMs: options.retryBaseMs ?? TIMING.retryBase,
      retryCapMs: options.retryCapMs ?? TIMING.retryCap,
      maxAttempts: options.maxAttempts ?? TIMING.maxAttempts,
    }
    const batchSize = options.batchSize ?? 500
    this.#batchSize = typeof batchSize === 'number' ? () => batchSize : batchSize
    this.#holdPolicy = new HoldPolicy(options.isOutage, options.untilRecovered)
    this.#keys = groupKeys(options.stream, options.group)
    this.#lease = new LeaseKeeper(this.#redis, this.#o.group, this.#o.consumer, this.#o.leaseMs)
    this.#lease.on('error', (error: unknown) => isRedisConnectionError(error) || this.emit('error', error))
    this.#lease.on('lost', (lost: unknown[]) => this.emit('lost', { entries: lost.length }))
    this.#metrics = instrumentConsumer(this, options.group)
  }

  /** When the read loop last completed a turn (ms epoch). */
  get lastProgressAt(): number {
    return this.#lastProgressAt
  }

  /** Starts the read loop. */
  async start(): Promise<void> {
    if (this.#running) return
    // Blocking reads need their own connection, or they would stall every other command.
    this.#reader = watchConnection(this.#redis.duplicate({ enableAutoPipelining: false }))
    this.#running = true
    this.#stopping = new AbortController()
    this.#loop = this.#run()
  }

  /**
   * Stops reading, lets the batch in flight finish and acknowledge, then closes the reader. A batch
   * held through an outage is left pending: another consumer takes it once its lease runs out.
   */
  async stop(): Promise<void> {
    if (!this.#running) return
    this.#running = false
    this.#stopping.abort()
    await this.#loop
    this.#lease.dropAll()
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
        if (error instanceof Held) {
          this.#metrics.held()
          // Waits for the outage to end (or the consumer to stop); the held batch goes first after it.
          await this.#holdPolicy.recovery(error.outage, this.#stopping.signal)
        } else {
          failures++
          // Redis being down is logged once by the connection's watch; anything else is news.
          if (!isRedisConnectionError(error)) this.emit('error', error)
          // A Redis outage must not spin: back off up to 5 s, then try again.
          await sleep(Math.min(5 * SECOND, 100 * 2 ** failures), this.#stopping.signal)
        }
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
      await moveDue(this.#redis, this.#keys, now, this.#batchSize())
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
    this.#lease.add(entries)
    if (entries.length > 0) await this.#process(entries)
  }

  /** Takes entries other consumers (dead, or stalled past their lease) left pending. */
  async #reclaim(): Promise<void> {
    for (const source of [this.#o.stream, this.#keys.retry]) {
      for await (const entries of reclaimable(this.#redis, source, this.#o, this.#batchSize(), () => this.#running)) {
        this.#lease.add(entries)
        this.emit('reclaimed', { entries: entries.length })
        // An entry that keeps killing its consumer is dead-lettered, not reclaimed forever.
        const over = entries.filter((e) => e.attempt > this.#o.maxAttempts)
        for (const entry of over) await this.#deadLetter(entry, new Error(`delivered ${entry.attempt} times without being acknowledged`))
        const rest = entries.filter((e) => e.attempt <= this.#o.maxAttempts)
        if (rest.length > 0) await this.#process(rest)
      }
      await pruneConsumers(this.#redis, source, this.#o.group, FORGET_CONSUMERS_AFTER)
    }
  }

  async #handle(entries: StreamEntry[]): Promise<void> {
    const watch = this.#lease.watch(entries)
    try {
      await this.#o.handler(entries, { signal: watch.signal })
      this.#holdPolicy.succeeded()
    } finally {
      watch.done()
    }
  }

  async #process(entries: StreamEntry[]): Promise<void> {
    try {
      await this.#handle(entries)
      await this.#ack(entries)
      return
    } catch (error) {
      if (this.#holdPolicy.holds(error)) {
        this.#held = entries
        throw new Held(error) // the read loop waits for recovery, then this batch is tried again as it is
      }
      // A lone entry has nothing to be isolated from: run again at once only where that is harmless.
      if (entries.length === 1 && !this.#rerunLone) return this.#failOrSplit(entries[0]!, error)
      // Otherwise: isolate the entries that fail from those that do not.
    }
    for (const [i, entry] of entries.entries()) {
      try {
        await this.#handle([entry])
        await this.#ack([entry])
      } catch (error) {
        if (this.#holdPolicy.holds(error)) {
          this.#held = entries.slice(i)
          throw new Held(error)
        }
        await this.#failOrSplit(entry, error)
      }
    }
  }

  // Each settles entries: they leave the lease first, so a renewal racing the write cannot report
  // as lost an entry that was simply finished.
  async #ack(entries: StreamEntry[]): Promise<void> {
    this.#lease.drop(entries)
    await acknowledge(this.#redis, this.#keys, entries)
    this.#metrics.acked(entries.length)
  }

  /** A failed entry is retried later, or split into parts that may each succeed. */
  async #failOrSplit(entry: StreamEntry, error: unknown): Promise<void> {
    const parts = this.#split?.(entry)
    if (parts && parts.length > 1) await this.#splitUp(entry, parts)
    else await this.#fail(entry, error as Error)
  }

  async #fail(entry: StreamEntry, error: Error): Promise<void> {
    if (entry.attempt >= this.#o.maxAttempts) return this.#deadLetter(entry, error)
    const delay = Math.round(Math.min(this.#o.retryCapMs, this.#o.retryBaseMs * 2 ** (entry.attempt - 1)) * (0.8 + Math.random() * 0.4))
    this.#lease.drop([entry])
    await delayRetry(this.#redis, this.#keys, entry, delay)
    this.emit('retry', { id: entry.origin, attempt: entry.attempt, delayMs: delay, error })
  }

  async #splitUp(entry: StreamEntry, parts: Array<Record<string, string>>): Promise<void> {
    this.#lease.drop([entry])
    await replaceByParts(this.#redis, this.#keys, entry, parts)
    this.emit('split', { id: entry.origin, parts: parts.length })
  }

  async #deadLetter(entry: StreamEntry, error: Error): Promise<void> {
    this.#lease.drop([entry])
    await deadLetter(this.#redis, this.#keys, entry, error)
    this.emit('dead', { id: entry.origin, attempt: entry.attempt, error })
  }
}
