/**
 * A project's keys as its owner manages them (Settings > API keys): create one of any kind (the
 * token is returned once and never stored), and revoke one. A revocation is published after its
 * commit, so every process's key cache forgets the key at once (shared/key-auth.ts).
 */
import type { Redis } from 'ioredis'
import type { Queryable } from '../../../shared/db/index.js'
import { publishKeyRevoked, type KeyAuthenticator } from '../../../shared/key-auth.js'
import { mintKey, type KeyKind } from '../../../shared/keys.js'
import type { Logger } from '../../../shared/log.js'
import type { StreamKeys } from '../../../shared/redis.js'

export const KEY_KINDS: readonly KeyKind[] = ['api', 'sourcemap', 'ingest']
/** Active keys a project may hold: enough for every environment and agent, bounded so a loop cannot mint without end. */
export const MAX_ACTIVE_KEYS = 50
const LABEL_MAX = 100

export type CreateOutcome = { kind: 'created'; token: string; id: string } | { kind: 'invalid_kind' } | { kind: 'too_many' }

/** Creates a key of kind for the project, labelled; the token is in the answer only. */
export async function createProjectKey(db: Queryable, projectId: string, kind: string, label: string): Promise<CreateOutcome> {
  const known = KEY_KINDS.find((k) => k === kind)
  if (!known) return { kind: 'invalid_kind' }
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE project_id = $1 AND revoked_at IS NULL', [projectId])
  if ((rows[0]?.n ?? 0) >= MAX_ACTIVE_KEYS) return { kind: 'too_many' }
  const minted = await mintKey(db, projectId, known, label.trim().slice(0, LABEL_MAX))
  return { kind: 'created', ...minted }
}

/**
 * Revokes one active key of the project and tells every process (this one at once, without waiting
 * for its own broadcast to come back); false when the project has no such active key. A lost publish (Redis away) is logged: the watches drop their caches when they
 * reconnect, and the cache period bounds the rest.
 */
export async function revokeProjectKey(deps: { db: Queryable; redis: Redis; keys: StreamKeys; log: Logger; auth?: KeyAuthenticator }, projectId: string, keyId: string): Promise<boolean> {
  const { rows } = await deps.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND project_id = $2 AND revoked_at IS NULL RETURNING id', [keyId, projectId])
  if (rows.length === 0) return false
  deps.auth?.forget(keyId)
  await publishKeyRevoked(deps.redis, deps.keys.keyRevoked, keyId).catch((error: unknown) => deps.log.warn('could not publish a key revocation; caches drop it on reconnect or within 30 s', { key_id: keyId, error }))
  return true
}
