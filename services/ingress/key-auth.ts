/**
 * Authenticates presented keys for the ingress. Lookups are cached briefly per key id, so the
 * hot path does one hash and no database round trip; concurrent misses for one id share a query.
 */
import type { Db } from '../../shared/db.js'
import { parseKey, secretMatches, type KeyKind } from '../../shared/keys.js'
import { SECOND } from '../../shared/time.js'

export type AuthResult =
  | { ok: true; keyId: string; projectId: string; kind: KeyKind }
  | { ok: false; code: 'key_missing' | 'key_malformed' | 'key_unknown' | 'insufficient_scope' }

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
  readonly #cache = new Map<string, { key: StoredKey | undefined; until: number }>()
  readonly #inflight = new Map<string, Promise<StoredKey | undefined>>()

  constructor(db: Db) {
    this.#db = db
  }

  /** Checks a presented key against the kind the route needs. */
  async authenticate(token: string | undefined, required: KeyKind): Promise<AuthResult> {
    if (!token) return { ok: false, code: 'key_missing' }
    const parsed = parseKey(token)
    if (!parsed) return { ok: false, code: 'key_malformed' }
    const stored = await this.#lookup(parsed.id)
    if (!stored || stored.kind !== parsed.kind || !secretMatches(parsed.secret, stored.secretHash)) {
      return { ok: false, code: 'key_unknown' }
    }
    if (stored.kind !== required) return { ok: false, code: 'insufficient_scope' }
    return { ok: true, keyId: parsed.id, projectId: stored.projectId, kind: stored.kind }
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
    this.#cache.set(id, { key, until: now + (key ? CACHE_TTL : MISS_TTL) })
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
