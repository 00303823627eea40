/**
 * The lease on the entries a consumer holds. An entry delivered to a consumer stays in the group's
 * pending list under its name; another consumer may take it (XAUTOCLAIM) once it has been idle for
 * the lease, which is how a dead consumer's work is recovered within seconds. A live consumer
 * renews the lease of everything it holds (a batch being handled, or one held through a database
 * outage) every third of the lease, so a handler may legitimately run for minutes (a model call)
 * and still not be robbed. Renewal claims only entries still pending under this consumer's name,
 * in one script, so a consumer that stalled past its lease never takes work back from the one that
 * reclaimed it: it learns instead that the lease was lost, and the handler's signal aborts.
 */
import { EventEmitter } from 'node:events'
import type { Redis } from 'ioredis'
import type { StreamEntry } from './entry.js'

// XCLAIM … JUSTID resets an entry's idle time without counting a delivery.
const RENEW_LUA = `
local owned, lost = {}, {}
for i = 3, #ARGV do
  local row = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1, ARGV[2])
  if #row == 1 then owned[#owned + 1] = ARGV[i] else lost[#lost + 1] = ARGV[i] end
end
if #owned > 0 then
  local args = {KEYS[1], ARGV[1], ARGV[2], 0}
  for _, id in ipairs(owned) do args[#args + 1] = id end
  args[#args + 1] = 'JUSTID'
  redis.call('XCLAIM', unpack(args))
end
return lost
`

/** Ids per renewal script call: Lua's unpack has a stack limit in the thousands. */
const RENEW_CHUNK = 1000

interface Watch {
  keys: ReadonlySet<string>
  controller: AbortController
}

export class LeaseKeeper extends EventEmitter {
  readonly #redis: Redis
  readonly #group: string
  readonly #consumer: string
  readonly #everyMs: number
  /** Held entries by `${source}\n${id}`. */
  readonly #held = new Map<string, { source: string; id: string }>()
  readonly #watches = new Set<Watch>()
  #timer: NodeJS.Timeout | undefined
  #renewing = false

  constructor(redis: Redis, group: string, consumer: string, leaseMs: number) {
    super()
    this.#redis = redis
    this.#group = group
    this.#consumer = consumer
    this.#everyMs = Math.max(10, Math.floor(leaseMs / 3))
  }

  /** Starts renewing entries (just read or reclaimed). */
  add(entries: readonly StreamEntry[]): void {
    for (const entry of entries) this.#held.set(keyOf(entry), { source: entry.source, id: entry.id })
    if (!this.#timer && this.#held.size > 0) {
      this.#timer = setInterval(() => void this.renew(), this.#everyMs)
      this.#timer.unref()
    }
  }

  /** Stops renewing entries (acknowledged, moved to a retry or dead-lettered, or given up at shutdown). */
  drop(entries: readonly Pick<StreamEntry, 'source' | 'id'>[]): void {
    for (const entry of entries) this.#held.delete(keyOf(entry))
    this.#idleTimer()
  }

  /** Drops everything held. */
  dropAll(): void {
    this.#held.clear()
    this.#idleTimer()
  }

  /** A signal that aborts when another consumer takes any of entries; call done() when the work ends. */
  watch(entries: readonly StreamEntry[]): { signal: AbortSignal; done(): void } {
    const watch: Watch = { keys: new Set(entries.map(keyOf)), controller: new AbortController() }
    this.#watches.add(watch)
    return { signal: watch.controller.signal, done: () => this.#watches.delete(watch) }
  }

  /** One renewal pass over every held entry (the timer calls it every third of the lease). */
  async renew(): Promise<void> {
    if (this.#renewing) return
    this.#renewing = true
    try {
      const bySource = new Map<string, string[]>()
      for (const { source, id } of this.#held.values()) {
        let ids = bySource.get(source)
        if (!ids) bySource.set(source, (ids = []))
        ids.push(id)
      }
      const lost: Array<{ source: string; id: string }> = []
      for (const [source, ids] of bySource) {
        for (let i = 0; i < ids.length; i += RENEW_CHUNK) {
          const gone = (await this.#redis.eval(RENEW_LUA, 1, source, this.#group, this.#consumer, ...ids.slice(i, i + RENEW_CHUNK))) as string[]
          for (const id of gone) if (this.#held.has(keyOf({ source, id }))) lost.push({ source, id })
        }
      }
      if (lost.length > 0) this.#lose(lost)
    } catch (error) {
      this.emit('error', error)
    } finally {
      this.#renewing = false
    }
  }

  #lose(lost: Array<{ source: string; id: string }>): void {
    const keys = new Set(lost.map(keyOf))
    for (const key of keys) this.#held.delete(key)
    this.#idleTimer()
    for (const watch of this.#watches) {
      if ([...keys].some((key) => watch.keys.has(key))) watch.controller.abort(new Error('lease lost: another consumer took these entries'))
    }
    this.emit('lost', lost)
  }

  #idleTimer(): void {
    if (this.#held.size === 0 && this.#timer) {
      clearInterval(this.#timer)
      this.#timer = undefined
    }
  }
}

function keyOf(entry: Pick<StreamEntry, 'source' | 'id'>): string {
  return `${entry.source}\n${entry.id}`
}
