/**
 * Keys: prefix, identifier segment, underscore, secret segment (spec "Keys"). Only a SHA-256 of
 * the secret is stored: secrets are 190 random bits, so a slow hash would add latency to every
 * ingest request without adding safety. A truncated or edited key fails to parse or to verify.
 */
import { createHash, randomInt, timingSafeEqual } from 'node:crypto'
import type { Queryable } from './db/index.js'

export type KeyKind = 'ingest' | 'sourcemap' | 'api'

/** Prefix of each kind; the api prefix is ours to choose (spec: format not shown). */
export const KEY_PREFIX: Readonly<Record<KeyKind, string>> = Object.freeze({
  ingest: 'svc_pk_',
  sourcemap: 'svc_sk_',
  api: 'svc_ak_',
})

const ID_LENGTH = 12
const SECRET_LENGTH = 32
const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'
const SECRET_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const KEY_SHAPE = new RegExp(`^svc_([psa])k_([a-z0-9]{${ID_LENGTH}})_([A-Za-z0-9]{${SECRET_LENGTH}})$`)
const KIND_BY_LETTER: Readonly<Record<string, KeyKind>> = { p: 'ingest', s: 'sourcemap', a: 'api' }

export interface ParsedKey {
  kind: KeyKind
  id: string
  secret: string
}

/** Splits a presented key; undefined when it is not exactly the shape we issue. */
export function parseKey(token: string): ParsedKey | undefined {
  const match = KEY_SHAPE.exec(token)
  if (!match) return undefined
  return { kind: KIND_BY_LETTER[match[1]!]!, id: match[2]!, secret: match[3]! }
}

/** SHA-256 of a secret segment. */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest()
}

/** Compares a presented secret with a stored hash in constant time. */
export function secretMatches(secret: string, storedHash: Uint8Array): boolean {
  const presented = hashSecret(secret)
  return storedHash.length === presented.length && timingSafeEqual(presented, storedHash)
}

/** Generates a new key of a kind: the full token (shown once) and what is stored. */
export function generateKey(kind: KeyKind): { token: string; id: string; secretHash: Buffer } {
  const id = randomString(ID_ALPHABET, ID_LENGTH)
  const secret = randomString(SECRET_ALPHABET, SECRET_LENGTH)
  return { token: `${KEY_PREFIX[kind]}${id}_${secret}`, id, secretHash: hashSecret(secret) }
}

/** Creates and stores a key for a project; returns the token, which is never stored. */
export async function mintKey(db: Queryable, projectId: string, kind: KeyKind, label = ''): Promise<{ token: string; id: string }> {
  const key = generateKey(kind)
  await db.query('INSERT INTO api_keys (id, project_id, kind, secret_hash, label) VALUES ($1, $2, $3, $4, $5)', [key.id, projectId, kind, key.secretHash, label])
  return { token: key.token, id: key.id }
}

function randomString(alphabet: string, length: number): string {
  // randomInt is unbiased; a byte modulo the alphabet size would not be.
  let out = ''
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)]
  return out
}

