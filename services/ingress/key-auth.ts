/**
 * Authenticates presented keys for the ingress. Lookups are cached briefly per key id, and a key
 * that verified is remembered whole for the same time, so the hot path is one map lookup: no
 * hash, no database round trip. Concurrent misses for one id share a query. While the database is
 * unreachable, a token that verified before keeps verifying (past its cache period), so a
 * database restart or failover does not stop ingestion; a token never seen gets 503.
 */
import { isDatabaseOutage, type Db } from '../../shared/db.js'
import { parseKey, secretMatches, type KeyKind } from '../../shared/keys.js'
import { SECOND } from '../../shared/time.js'

export type AuthResult =
  | { ok: true; keyId: string; projectId: string; kind: KeyKind }
  | { ok: false; code: 'key_missing' | 'key_malformed' | 'key_unknown' | 'insufficient_scope' | 'key_check_unavailable' }

interface StoredKey {
  projectId: string
  kind: KeyKind
  secretHash: Uint8Array
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

  /** cacheMs: how long a lookup is trusted (tests shorten it). */
  constructor(db: Db, options: { cacheMs?: number } = {}) {
    this.#db = db
    this.#ttlMs = options.cacheMs ?? CACHE_TTL
  }

  /** The answer for a token that verified within the cache period, without waiting; else undefined. */
  cached(token: string | undefined, required: KeyKind): AuthResult | undefined {
    if (!token) return undefined
    const hit = this.#verified.get(token)
    if (!hit || hit.until <= Date.now()) return undefined
    return result(hit.key, required)
  }

  /** Checks a presented key against the kind the route needs. */
  async authenticate(token: string | undefined, required: KeyKind): Promise<AuthResult> {
    const fast = this.cached(token, required)
    if (fast) return fast
    if (!token) return { ok: false, code: 'key_missing' }
    const parsed = parseKey(token)
    if (!parsed) return { ok: false, code: 'key_malformed' }
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
    if (!stored || stored.kind !== parsed.kind || !secretMatches(parsed.secret, stored.secretHash)) {
      return { ok: false, code: 'key_unknown' }
    }
    const key = { ...stored, id: parsed.id }
    if (this.#verified.size >= CACHE_MAX) this.#verified.delete(this.#verified.keys().next().value!)
    this.#verified.set(token, { key, until: this.#cache.get(parsed.id)?.until ?? Date.now() + this.#ttlMs })
    return result(key, required)
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
    const { rows } = await this.#db.query<{ project_id: string; kind: KeyKind; secret_hash: Buffer }>(
      'SELECT project_id, kind, secret_hash FROM api_keys WHERE id = $1 AND revoked_at IS NULL',
      [id],
    )
    const row = rows[0]
    return row && { projectId: row.project_id, kind: row.kind, secretHash: row.secret_hash }
  }
}

function result(key: StoredKey & { id: string }, required: KeyKind): AuthResult {
  if (key.kind !== required) return { ok: false, code: 'insufficient_scope' }
  return { ok: true, keyId: key.id, projectId: key.projectId, kind: key.kind }
}
