/**
 * Puts accepted events on the events stream. Events that finish arriving while a batch gathers
 * (below) go to Redis together: one Lua call checks every key's rate limit and every project's
 * cap and, when each has room for its events, counts them and adds them as ONE packed entry (shared/domain/event.ts). An
 * event is never added without being counted, nor counted without being added. One call and one
 * compressed entry per turn instead of one per event is what lets the ingress keep up with the
 * HTTP layer: Redis's time per entry goes mostly to copying bytes, and a pack of a dozen events
 * holds about a tenth of their bytes.
 */
import type { Redis } from 'ioredis'
import { packedEntryFields, packedRecord, type EventEnvelope } from '../../shared/domain/event.js'
import { INTAKE_TALLY_TTL_SECONDS, tallyHour } from '../../shared/domain/intake-tally.js'
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
/**
 * A batch gathers for one more turn of the event loop while the last turn brought it events, and
 * goes once a turn brought none (or it is full, or this long after its first event). Under load
 * the loop never idles meanwhile (a pending immediate makes its poll non-blocking), so the wait
 * costs no throughput, and packs grow: sent after one turn they held 13 to 15 events on 2 cores,
 * gathered 20 to 23, and Redis's CPU an event fell by about a fifth (each call costs both sides a
 * wake-up, which on these VMs outweighs copying the bytes). A lone event waits one empty turn.
 */
export const GATHER_MS = 1

// KEYS: [1] the stream, then K per-key rate counters, then P per-project counters, then P intake
// tallies (one per project of the batch, in the same order).
// ARGV: [1] per-key limit, [2] counter ttl, [3] tally ttl, [4] K, [5] P; then per key counter how
// many events it has in the batch; per project counter how many, then its cap (0: none); then each
// event's "key:project" counter numbers joined by commas; then the fields of the entry to add.
// All or nothing: when every counter has room for its events, the entry is added and each counter
// moves once (INCRBY), a project's even without a cap, so a cap set mid-minute counts the minute's
// events already taken; the answer is 1. Otherwise nothing is added or counted: each event in turn
// is given room if both its key and its project still have some, else refused (1: the key's limit,
// 2: the project's cap), the refusals are tallied per project (HINCRBY refused), and the answer is
// the events' verdicts, so the caller answers the refused and sends the others again as a smaller
// entry. Fixed one-minute windows: exact per window; a burst across a window edge can reach twice
// the limit for a moment, acceptable for abuse protection.
const ENQUEUE_BATCH_LUA = `
local keyLimit = tonumber(ARGV[1])
local K = tonumber(ARGV[4])
local P = tonumber(ARGV[5])
local room = {}
local short = false
for c = 1, K do
  room[c] = math.max(0, keyLimit - tonumber(redis.call('GET', KEYS[1 + c]) or '0'))
  if room[c] < tonumber(ARGV[5 + c]) then short = true end
end
for p = 1, P do
  local cap = tonumber(ARGV[7 + K + 2 * (p - 1)])
  if cap > 0 then
    room[K + p] = math.max(0, cap - tonumber(redis.call('GET', KEYS[1 + K + p]) or '0'))
    if room[K + p] < tonumber(ARGV[6 + K + 2 * (p - 1)]) then short = true end
  end
end
local fields = 7 + K + 2 * P
if not short then
  redis.call('XADD', KEYS[1], '*', unpack(ARGV, fields))
  for c = 1, K + P do
    local wanted = tonumber(ARGV[c <= K and 5 + c or 6 + K + 2 * (c - K - 1)])
    if redis.call('INCRBY', KEYS[1 + c], wanted) == wanted then redis.call('EXPIRE', KEYS[1 + c], ARGV[2]) end
  end
  return 1
end
local verdicts = {}
local refused = {}
for k, p in string.gmatch(ARGV[fields - 1], '(%d+):(%d+)') do
  k = tonumber(k)
  p = tonumber(p)
  local verdict = 0
  if room[k] < 1 then verdict = 1 elseif room[K + p] ~= nil and room[K + p] < 1 then verdict = 2 end
  if verdict == 0 then
    room[k] = room[k] - 1
    if room[K + p] ~= nil then room[K + p] = room[K + p] - 1 end
  else
    refused[p] = (refused[p] or 0) + 1
  end
  verdicts[#verdicts + 1] = verdict
end
for p, n in pairs(refused) do
  redis.call('HINCRBY', KEYS[1 + K + P + p], 'refused', n)
  redis.call('EXPIRE', KEYS[1 + K + P + p], ARGV[3])
end
return verdicts
`

/** Why an event was refused: its key's per-minute limit, or its project's cap. */
export type RefusalReason = 'key_rate' | 'project_quota'

export type EnqueueResult = { ok: true } | { ok: false; retryAfter: number; reason: RefusalReason }

/** Told once how an event's enqueue ended: an error (Redis failed or is away), or the verdict. */
export type EnqueueDone = (error: Error | undefined, result: EnqueueResult | undefined) => void

const ADMITTED: EnqueueResult = Object.freeze({ ok: true })

interface Waiting {
  envelope: EventEnvelope
  /** The project's cap in events a minute; 0: none. */
  projectCap: number
  done: EnqueueDone
  /** Told already: a refusal answered before a resend of the rest failed is not told again. */
  settled: boolean
}

/** Tells a waiting event how its enqueue ended, once. */
function settle(waiting: Waiting, error: Error | undefined, result: EnqueueResult | undefined): void {
  if (waiting.settled) return
  waiting.settled = true
  waiting.done(error, result)
}

interface QueueRedis extends Redis {
  svcEnqueueBatch(numberOfKeys: number, ...args: Array<string | number>): Promise<number | number[]>
}

/** The limits the queue enforces, in events a minute. */
export interface QueueLimits {
  perKey: number
  /** A project's cap when its settings name none (projects.events_per_minute NULL); 0: no cap. */
  perProjectDefault: number
}

export class EventQueue {
  readonly #redis: QueueRedis
  readonly #keys: StreamKeys
  readonly #limits: QueueLimits
  readonly #gatherMs: number
  #waiting: Waiting[] = []
  #waitingChars = 0
  #scheduled = false
  /** Events submitted since the batch last looked: none means the loop's last turn brought nothing. */
  #arrived = 0
  /** performance.now() when the gathering batch got its first event. */
  #gatherStarted = 0
  #meanEventsPerEntry = 1

  /** gatherMs: how long a batch may gather at most (GATHER_MS; a test sets its own). */
  constructor(redis: Redis, keys: StreamKeys, limits: QueueLimits, gatherMs = GATHER_MS) {
    redis.defineCommand('svcEnqueueBatch', { lua: ENQUEUE_BATCH_LUA })
    this.#redis = redis as QueueRedis
    this.#keys = keys
    this.#limits = limits
    this.#gatherMs = gatherMs
  }

  /** Events per stream entry lately (a moving average): turns the stream's backlog in entries into events. */
  get meanEventsPerEntry(): number {
    return this.#meanEventsPerEntry
  }

  /**
   * Adds the envelope to the stream unless its key or its project is over its limit; resolves once
   * Redis answered. projectCap: the project's own cap (projects.events_per_minute), null for the default.
   */
  enqueue(envelope: EventEnvelope, projectCap: number | null = null): Promise<EnqueueResult> {
    return new Promise((resolve, reject) => this.submit(envelope, projectCap, (error, result) => (error ? reject(error) : resolve(result!))))
  }

  /**
   * enqueue without a promise, for the events route's hot path: done is called once, after Redis
   * answered (never synchronously); done must not throw. A promise and its turn through the microtask queue per event
   * were a measurable share of an ingress thread's time.
   */
  submit(envelope: EventEnvelope, projectCap: number | null, done: EnqueueDone): void {
    this.#waiting.push({ envelope, projectCap: projectCap ?? this.#limits.perProjectDefault, done, settled: false })
    this.#waitingChars += envelope.body.length
    this.#arrived++
    if (this.#waiting.length >= MAX_BATCH || this.#waitingChars >= MAX_BATCH_CHARS) this.#flush()
    else if (!this.#scheduled) {
      this.#scheduled = true
      this.#gatherStarted = performance.now()
      // After the poll phase: every request whose body completed in this turn is in the batch.
      setImmediate(this.#gather)
    }
  }

  /** Runs after each poll phase while a batch waits: another turn if the last one brought events (GATHER_MS). */
  readonly #gather = (): void => {
    if (this.#waiting.length > 0 && this.#arrived > 0 && performance.now() - this.#gatherStarted < this.#gatherMs) {
      this.#arrived = 0
      setImmediate(this.#gather)
      return
    }
    this.#scheduled = false
    this.#flush()
  }

  /** Sends the waiting events as one batch; a gathering that is under way goes on for the next. */
  #flush(): void {
    this.#arrived = 0
    this.#gatherStarted = performance.now()
    const batch = this.#waiting
    this.#waiting = []
    this.#waitingChars = 0
    if (batch.length === 0) return
    this.#meanEventsPerEntry = 0.9 * this.#meanEventsPerEntry + 0.1 * batch.length
    this.#admit(batch).catch((error: Error) => {
      for (const waiting of batch) settle(waiting, error, undefined)
    })
  }

  /**
   * Adds batch as one entry if every key and project has room for its events. Otherwise the events
   * beyond their key's or project's room are refused until the window ends, and the rest go again
   * as a smaller batch (another ingress may have used the room meanwhile, so that too may come
   * back short).
   */
  async #admit(batch: Waiting[]): Promise<void> {
    const now = Date.now()
    const window = Math.floor(now / (WINDOW_SECONDS * SECOND))
    const keyCounters = new Map<string, number>()
    const keyWanted: number[] = []
    const projectCounters = new Map<string, number>()
    const projects: Array<{ id: string; wanted: number; cap: number }> = []
    let map = ''
    for (const { envelope, projectCap } of batch) {
      let k = keyCounters.get(envelope.keyId)
      if (k === undefined) keyCounters.set(envelope.keyId, (k = keyWanted.push(0)))
      keyWanted[k - 1]!++
      let p = projectCounters.get(envelope.projectId)
      if (p === undefined) projectCounters.set(envelope.projectId, (p = projects.push({ id: envelope.projectId, wanted: 0, cap: projectCap })))
      const project = projects[p - 1]!
      project.wanted++
      // Lookups of one project cached at different moments may differ: the stricter cap holds.
      if (projectCap > 0 && (project.cap === 0 || projectCap < project.cap)) project.cap = projectCap
      map += map === '' ? `${k}:${p}` : `,${k}:${p}`
    }
    const hour = tallyHour(now)
    const keys = [
      this.#keys.events,
      ...[...keyCounters.keys()].map((keyId) => this.#keys.rateLimit(keyId, window)),
      ...projects.map(({ id }) => this.#keys.projectRateLimit(id, window)),
      ...projects.map(({ id }) => this.#keys.intakeTally(id, hour)),
    ]
    const counts = [...keyWanted, ...projects.flatMap(({ wanted, cap }) => [wanted, cap])]
    const fields = packedEntryFields(batch.map(({ envelope }) => packedRecord(envelope)))
    const args = [this.#limits.perKey, WINDOW_SECONDS + 5, INTAKE_TALLY_TTL_SECONDS, keyWanted.length, projects.length, ...counts, map, ...fields]
    const answer = await this.#redis.svcEnqueueBatch(keys.length, ...keys, ...args)
    if (!Array.isArray(answer)) {
      for (const waiting of batch) settle(waiting, undefined, ADMITTED)
      return
    }
    const retryAfter = Math.max(1, Math.ceil(((window + 1) * WINDOW_SECONDS * SECOND - now) / SECOND))
    const again = batch.filter((waiting, i) => {
      const verdict = Number(answer[i])
      if (verdict === 0) return true
      settle(waiting, undefined, { ok: false, retryAfter, reason: verdict === 2 ? 'project_quota' : 'key_rate' })
      return false
    })
    if (again.length > 0) await this.#admit(again)
  }
}
