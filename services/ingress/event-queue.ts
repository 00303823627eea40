/**
 * Puts accepted events on the events stream. The per-key rate limit and the XADD run in one Lua
 * script, so an event over the limit is never added and one under it is never counted without
 * being added. A cached backlog reading gives back-pressure without a Redis call per request.
 */
import type { Redis } from 'ioredis'
import { envelopeFields, type EventEnvelope } from '../../shared/event.js'
import type { StreamKeys } from '../../shared/redis.js'
import { SECOND } from '../../shared/time.js'

const WINDOW_SECONDS = 60

// Fixed one-minute windows: cheap (one INCR) and exact per window; a burst across a window edge
// can reach twice the limit for a moment, which is acceptable for abuse protection.
const ENQUEUE_LUA = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
if n > tonumber(ARGV[1]) then
  local ttl = redis.call('TTL', KEYS[1])
  return {0, ttl}
end
return {1, redis.call('XADD', KEYS[2], '*', unpack(ARGV, 3))}
`

type EnqueueResult = { ok: true; entryId: string } | { ok: false; retryAfter: number }

interface QueueRedis extends Redis {
  svcEnqueue(rateKey: string, stream: string, limit: number, ttl: number, ...fields: string[]): Promise<[number, string | number]>
}

export class EventQueue {
  readonly #redis: QueueRedis
  readonly #keys: StreamKeys
  readonly #limit: number

  constructor(redis: Redis, keys: StreamKeys, limitPerMinute: number) {
    redis.defineCommand('svcEnqueue', { numberOfKeys: 2, lua: ENQUEUE_LUA })
    this.#redis = redis as QueueRedis
    this.#keys = keys
    this.#limit = limitPerMinute
  }

  /** Adds the envelope to the stream unless the key is over its limit. */
  async enqueue(envelope: EventEnvelope): Promise<EnqueueResult> {
    const window = Math.floor(Date.now() / (WINDOW_SECONDS * SECOND))
    const [ok, value] = await this.#redis.svcEnqueue(
      this.#keys.rateLimit(envelope.keyId, window),
      this.#keys.events,
      this.#limit,
      WINDOW_SECONDS + 5,
      ...envelopeFields(envelope),
    )
    if (ok === 1) return { ok: true, entryId: String(value) }
    return { ok: false, retryAfter: Math.max(1, Number(value)) }
  }
}

/** Reads how far the grouper is behind, a few times a second, for back-pressure decisions. */
export class BacklogMonitor {
  readonly #redis: Redis
  readonly #stream: string
  readonly #group: string
  readonly #limit: number
  #backlog = 0
  #timer: NodeJS.Timeout | undefined

  constructor(redis: Redis, stream: string, group: string, limit: number) {
    this.#redis = redis
    this.#stream = stream
    this.#group = group
    this.#limit = limit
  }

  /** True when the group's undelivered plus unacked entries pass the limit. */
  get full(): boolean {
    return this.#backlog > this.#limit
  }

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

function pairs(flat: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (let i = 0; i + 1 < flat.length; i += 2) out[String(flat[i])] = flat[i + 1]
  return out
}
