/**
 * Puts accepted events on the events stream. Events that finish arriving in the same turn of the
 * event loop go to Redis together: one Lua call checks every key's rate limit and, when each key
 * has room for its events, counts them and adds them as ONE packed entry (shared/domain/event.ts). An
 * event is never added without being counted, nor counted without being added. One call and one
 * compressed entry per turn instead of one per event is what lets the ingress keep up with the
 * HTTP layer: Redis's time per entry goes mostly to copying bytes, and a pack of a dozen events
 * holds about a tenth of their bytes.
 */
import type { Redis } from 'ioredis'
import { packedEntryFields, packedRecord, type EventEnvelope } from '../../shared/domain/event.js'
import type { StreamKeys } from '../../shared/redis.js'
import { SECOND } from '../../shared/time.js'

const WINDOW_SECONDS = 60
/** Events per Lua call and entry: bounds how long one call holds Redis and one entry's size. */
const MAX_BATCH = 256
/**
 * Body characters per entry: a turn's worth of large events is packed in pieces, so compressing
 * one (about 5 ms a MiB here) never holds the event loop long, nor one call Redis.
 */
const MAX_BATCH_CHARS = 1024 * 1024

// KEYS[1] the stream, KEYS[2..] the rate counters of the keys in the batch.
// ARGV: limit, counter ttl, then per counter (in KEYS order) how many events it has in the batch,
// then the fields of the entry to add.
// All or nothing: when every counter has room for its events, the entry is added and each counter
// moves once (INCRBY); the answer is 1. Otherwise nothing is added or counted, and the answer is
// each counter's room, so the caller can send again only the events that fit. Fixed one-minute
// windows: exact per window; a burst across a window edge can reach twice the limit for a moment,
// acceptable for abuse protection.
const ENQUEUE_BATCH_LUA = `
local limit = tonumber(ARGV[1])
local counters = #KEYS - 1
local room = {}
local short = false
for c = 1, counters do
  room[c] = math.max(0, limit - tonumber(redis.call('GET', KEYS[c + 1]) or '0'))
  if room[c] < tonumber(ARGV[2 + c]) then short = true end
end
if short then return room end
redis.call('XADD', KEYS[1], '*', unpack(ARGV, 3 + counters))
for c = 1, counters do
  local wanted = tonumber(ARGV[2 + c])
  if redis.call('INCRBY', KEYS[c + 1], wanted) == wanted then redis.call('EXPIRE', KEYS[c + 1], ARGV[2]) end
end
return 1
`

export type EnqueueResult = { ok: true } | { ok: false; retryAfter: number }

interface Waiting {
  envelope: EventEnvelope
  resolve: (result: EnqueueResult) => void
  reject: (error: Error) => void
}

interface QueueRedis extends Redis {
  svcEnqueueBatch(numberOfKeys: number, ...args: Array<string | number>): Promise<number | number[]>
}

export class EventQueue {
  readonly #redis: QueueRedis
  readonly #keys: StreamKeys
  readonly #limit: number
  #waiting: Waiting[] = []
  #waitingChars = 0
  #scheduled = false
  #meanEventsPerEntry = 1

  constructor(redis: Redis, keys: StreamKeys, limitPerMinute: number) {
    redis.defineCommand('svcEnqueueBatch', { lua: ENQUEUE_BATCH_LUA })
    this.#redis = redis as QueueRedis
    this.#keys = keys
    this.#limit = limitPerMinute
  }

  /** Events per stream entry lately (a moving average): turns the stream's backlog in entries into events. */
  get meanEventsPerEntry(): number {
    return this.#meanEventsPerEntry
  }

  /** Adds the envelope to the stream unless its key is over the limit; resolves once Redis answered. */
  enqueue(envelope: EventEnvelope): Promise<EnqueueResult> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ envelope, resolve, reject })
      this.#waitingChars += envelope.body.length
      if (this.#waiting.length >= MAX_BATCH || this.#waitingChars >= MAX_BATCH_CHARS) this.#flush()
      else if (!this.#scheduled) {
        this.#scheduled = true
        // After the poll phase: every request whose body completed in this turn is in the batch.
        setImmediate(() => this.#flush())
      }
    })
  }

  #flush(): void {
    this.#scheduled = false
    const batch = this.#waiting
    this.#waiting = []
    this.#waitingChars = 0
    if (batch.length === 0) return
    this.#meanEventsPerEntry = 0.9 * this.#meanEventsPerEntry + 0.1 * batch.length
    this.#admit(batch).catch((error: Error) => {
      for (const waiting of batch) waiting.reject(error)
    })
  }

  /**
   * Adds batch as one entry if every key has room for its events. Otherwise the events beyond
   * their key's room are refused until the window ends, and the rest go again as a smaller batch
   * (another ingress may have used the room meanwhile, so that too may come back short).
   */
  async #admit(batch: Waiting[]): Promise<void> {
    const now = Date.now()
    const window = Math.floor(now / (WINDOW_SECONDS * SECOND))
    const counterOf = new Map<string, number>()
    const wanted: number[] = []
    const counterPerEvent = batch.map(({ envelope }) => {
      let c = counterOf.get(envelope.keyId)
      if (c === undefined) {
        c = wanted.push(0) - 1
        counterOf.set(envelope.keyId, c)
      }
      wanted[c]!++
      return c
    })
    const keys = [this.#keys.events, ...[...counterOf.keys()].map((keyId) => this.#keys.rateLimit(keyId, window))]
    const fields = packedEntryFields(batch.map(({ envelope }) => packedRecord(envelope)))
    const answer = await this.#redis.svcEnqueueBatch(keys.length, ...keys, this.#limit, WINDOW_SECONDS + 5, ...wanted, ...fields)
    if (!Array.isArray(answer)) {
      for (const waiting of batch) waiting.resolve({ ok: true })
      return
    }
    const retryAfter = Math.max(1, Math.ceil(((window + 1) * WINDOW_SECONDS * SECOND - now) / SECOND))
    const room = answer.map(Number)
    const again = batch.filter((waiting, i) => {
      const c = counterPerEvent[i]!
      if (room[c]! > 0) {
        room[c]!--
        return true
      }
      waiting.resolve({ ok: false, retryAfter })
      return false
    })
    if (again.length > 0) await this.#admit(again)
  }
}
