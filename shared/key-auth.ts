/**
 * Authenticates presented keys, for ingestion and the web side alike (one instance per process or
 * ingress thread, so one cache). Lookups are cached briefly per key id, and a key
 * that verified is remembered whole for the same time, so the hot path is one map lookup: no
 * hash, no database round trip. Concurrent misses for one id share a query. While the database is
 * unreachable, a token that verified before keeps verifying (past its cache period), so a
 * database restart or failover does not stop ingestion; a token never seen gets 503.
 *
 * A lookup also reads the project's intake cap (projects.events_per_minute), so the ingress learns
 * it without another query; a changed cap takes effect within the cache period.
 *
 * Revocation takes effect at once: the revoking process publishes the key's id after its commit
 * (publishKeyRevoked), and every process's RevocationWatch makes its authenticator forget the id for
 * good. A watch that lost its connection may have missed a message, so when it is back it drops
 * every cached lookup; the cache period bounds what a process that never hears of it can miss.
 */
import type { Redis } from 'ioredis'
import { isDatabaseOutage, type Db } from './db/index.js'
import { parseKey, secretMatches, type KeyKind } from './keys.js'
import { watchConnection } from './redis.js'
import { SECOND } from './time.js'

export type AuthResult =
  | { ok: true; keyId: string; projectId: string; kind: KeyKind; projectEventsPerMinute: number | null; dsnNumber: string }
  | { ok: false; code: 'key_missing' | 'key_malformed' | 'key_unknown' | 'insufficient_scope' | 'key_check_unavailable' }

interface StoredKey {
  projectId: string
  kind: KeyKind
  secretHash: Uint8Array
  /** The project's own intake cap (projects.events_per_minute); null: the service's default. Read with the key, so it follows the cache period. */
  projectEventsPerMinute: number | null
  /** The project's number in its Sentry DSN (projects.dsn_number), which the Sentry routes' URL names. */
  dsnNumber: string
}

/** A revoked or new key takes effect within this long on every ingress. */
const CACHE_TTL = 30 * SECOND
/** Unknown ids are remembered briefly so a flood of bogus keys does not become a flood of queries. */
const MISS_TTL = 5 * SECOND
const CACHE_MAX = 10_000

export class KeyAuthenticator {
  readonly #db: Db
  readonly #ttlMs: number
  readonly #cache = new Map<string, { key: StoredKey | undefined; until: number }>()
  readonly #inflight = new Map<string, Promise<StoredKey | undefined>>()
  /** Tokens that verified, with what they verified as; only successes, so garbage cannot fill it. */
  readonly #verified = new Map<string, { key: StoredKey & { id: string }; until: number }>()
  /** Ids revoked while this process ran: never answered again, whatever a lookup in flight returns. */
  readonly #revoked = new Set<string>()

  /** cacheMs: how long a lookup is trusted (tests shorten it). */
  constructor(db: Db, options: { cacheMs?: number } = {}) {
    this.#db = db
    this.#ttlMs = options.cacheMs ?? CACHE_TTL
  }

  /** The answer for a token that verified within the cache period, without waiting; else undefined. */
  cached(token: string | undefined, required: KeyKind): AuthResult | undefined {
    if (!token) return undefined
    const hit = this.#verified.get(token)
    if (!hit || hit.until <= Date.now() || this.#revoked.has(hit.key.id)) return undefined
    return result(hit.key, required)
  }

  /** Checks a presented key against the kind the route needs. */
  async authenticate(token: string | undefined, required: KeyKind): Promise<AuthResult> {
    const fast = this.cached(token, required)
    if (fast) return fast
    if (!token) return { ok: false, code: 'key_missing' }
    const parsed = parseKey(token)
    if (!parsed) return { ok: false, code: 'key_malformed' }
    if (this.#revoked.has(parsed.id)) return { ok: false, code: 'key_unknown' }
    let stored: StoredKey | undefined
    try {
      stored = await this.#lookup(parsed.id)
    } catch (error) {
      if (!isDatabaseOutage(error)) throw error
      this.#db.outage.report(error)
      // Kept past its period on purpose: during an outage, revocations cannot be read either.
      const stale = this.#verified.get(token)
      return stale ? result(stale.key, required) : { ok: false, code: 'key_check_unavailable' }
    }
    if (!stored || this.#revoked.has(parsed.id) || stored.kind !== parsed.kind || !secretMatches(parsed.secret, stored.secretHash)) {
      return { ok: false, code: 'key_unknown' }
    }
    const key = { ...stored, id: parsed.id }
    if (this.#verified.size >= CACHE_MAX) this.#verified.delete(this.#verified.keys().next().value!)
    this.#verified.set(token, { key, until: this.#cache.get(parsed.id)?.until ?? Date.now() + this.#ttlMs })
    return result(key, required)
  }

  /** Forgets a revoked key for good: its cached lookup, the tokens that verified with it, any lookup in flight. */
  forget(id: string): void {
    if (this.#revoked.size >= CACHE_MAX) this.#revoked.delete(this.#revoked.values().next().value!)
    this.#revoked.add(id)
    this.#cache.delete(id)
    for (const [token, hit] of this.#verified) if (hit.key.id === id) this.#verified.delete(token)
  }

  /**
   * Drops every cached lookup, so the next request of each key reads the database (after a missed
   * revocation message could have been sent). Tokens that verified stay for a database outage only.
   */
  forgetAll(): void {
    this.#cache.clear()
    for (const hit of this.#verified.values()) hit.until = 0
  }

  async #lookup(id: string): Promise<StoredKey | undefined> {
    const now = Date.now()
    const cached = this.#cache.get(id)
    if (cached && cached.until > now) return cached.key
    let pending = this.#inflight.get(id)
    if (!pending) {
      pending = this.#query(id).finally(() => this.#inflight.delete(id))
      this.#inflight.set(id, pending)
    }
    const key = await pending
    if (this.#cache.size >= CACHE_MAX) this.#cache.delete(this.#cache.keys().next().value!)
    this.#cache.set(id, { key, until: now + (key ? this.#ttlMs : Math.min(this.#ttlMs, MISS_TTL)) })
    return key
  }

  async #query(id: string): Promise<StoredKey | undefined> {
    const { rows } = await this.#db.query<{ project_id: string; kind: KeyKind; secret_hash: Buffer; events_per_minute: number | null; dsn_number: string }>(
      'SELECT k.project_id, k.kind, k.secret_hash, p.events_per_minute, p.dsn_number FROM api_keys k JOIN projects p ON p.id = k.project_id WHERE k.id = $1 AND k.revoked_at IS NULL',
      [id],
    )
    const row = rows[0]
    return row && { projectId: row.project_id, kind: row.kind, secretHash: row.secret_hash, projectEventsPerMinute: row.events_per_minute, dsnNumber: row.dsn_number }
  }
}

function result(key: StoredKey & { id: string }, required: KeyKind): AuthResult {
  if (key.kind !== required) return { ok: false, code: 'insufficient_scope' }
  return { ok: true, keyId: key.id, projectId: key.projectId, kind: key.kind, projectEventsPerMinute: key.projectEventsPerMinute, dsnNumber: key.dsnNumber }
}

/** Tells every process that a key was revoked; call after the revocation committed. */
export async function publishKeyRevoked(redis: Redis, channel: string, keyId: string): Promise<void> {
  await redis.publish(channel, keyId)
}

/**
 * Listens for revocations on a subscriber connection of its own and makes the authenticator forget
 * each revoked id; after a reconnect it drops every cached lookup (messages sent meanwhile are lost).
 */
export class RevocationWatch {
  readonly #sub: Redis
  readonly #ready: Promise<unknown>

  constructor(redis: Redis, channel: string, auth: KeyAuthenticator) {
    // A subscribed connection can run nothing else; ioredis resubscribes after a reconnect.
    this.#sub = watchConnection(redis.duplicate({ enableAutoPipelining: false }))
    this.#sub.on('error', () => {}) // reconnects on its own; the cache period bounds what it misses meanwhile
    this.#sub.on('message', (_channel: string, id: string) => auth.forget(id))
    let connected = false
    this.#sub.on('ready', () => {
      if (connected) auth.forgetAll()
      connected = true
    })
    this.#ready = this.#sub.subscribe(channel).catch(() => undefined)
  }

  /** Resolves once subscribed (or once the first attempt failed: it keeps trying on its own). */
  ready(): Promise<unknown> {
    return this.#ready
  }

  /** Closes the subscriber connection. */
  close(): void {
    this.#sub.disconnect()
  }
}
