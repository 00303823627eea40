/**
 * Password hashing with scrypt (node:crypto). The stored string names its own parameters
 * (scrypt$N$r$p$salt$hash), so the cost can be raised later without breaking existing accounts:
 * an older hash still verifies and needsRehash says it is time to store a new one.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

/** Shorter passwords are refused at sign-up (NIST SP 800-63B asks for at least 8). */
export const PASSWORD_MIN_LENGTH = 10
/** Longer ones are refused too: nobody types more, and hashing megabytes is a cheap way to burn CPU. */
export const PASSWORD_MAX_LENGTH = 1024

// N = 2^15, r = 8: 32 MiB and some tens of milliseconds per hash on this class of machine.
const CURRENT = { N: 2 ** 15, r: 8, p: 1 } as const
const SALT_BYTES = 16
const HASH_BYTES = 32
// Bounds on what a stored string may ask for, so a tampered row cannot make one sign-in eat gigabytes.
const MAX_MEMORY_BYTES = 256 * 1024 * 1024
const MAX_P = 16

interface ScryptParams {
  N: number
  r: number
  p: number
}

interface ParsedHash extends ScryptParams {
  salt: Buffer
  hash: Buffer
}

function derive(password: string, salt: Buffer, params: ScryptParams, length: number): Promise<Buffer> {
  // scrypt needs 128 * N * r bytes; Node's default cap (32 MiB) is exactly at our N, so raise it.
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 128 * params.N * params.r * 2 + 1024 * 1024 }
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)))
  })
}

/** Hashes a password with a fresh random salt; the result is self-describing. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES)
  const hash = await derive(password, salt, CURRENT, HASH_BYTES)
  return ['scrypt', CURRENT.N, CURRENT.r, CURRENT.p, salt.toString('base64url'), hash.toString('base64url')].join('$')
}

/** Parses a stored hash; undefined when it is not one this code wrote or asks for unsafe parameters. */
function parseHash(stored: string): ParsedHash | undefined {
  const parts = stored.split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined
  const [N, r, p] = parts.slice(1, 4).map((part) => (/^[0-9]{1,8}$/.test(part) ? Number(part) : NaN)) as [number, number, number]
  const powerOfTwo = N > 1 && (N & (N - 1)) === 0
  if (!powerOfTwo || !(r >= 1) || 128 * N * r > MAX_MEMORY_BYTES || !(p >= 1 && p <= MAX_P)) return undefined
  const salt = Buffer.from(parts[4]!, 'base64url')
  const hash = Buffer.from(parts[5]!, 'base64url')
  if (salt.length < 8 || hash.length < 16) return undefined
  return { N, r, p, salt, hash }
}

/** True when password matches the stored hash; compared in constant time. A malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored)
  if (!parsed) return false
  const candidate = await derive(password, parsed.salt, parsed, parsed.hash.length)
  return timingSafeEqual(candidate, parsed.hash)
}

/** True when a stored hash was made with weaker parameters than today's: store a fresh one after a good sign-in. */
export function needsRehash(stored: string): boolean {
  const parsed = parseHash(stored)
  return !parsed || parsed.N < CURRENT.N || parsed.r < CURRENT.r || parsed.hash.length < HASH_BYTES
}

let dummyHash: Promise<string> | undefined

/**
 * Spends the time of one verification without an account, so an unknown email answers as slowly
 * as a wrong password and the timing tells nothing about which emails exist.
 */
export async function burnVerification(password: string): Promise<void> {
  dummyHash ??= hashPassword('not a password anybody has')
  await verifyPassword(password, await dummyHash)
}

/** The problem with a new password, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH) return `Choose a password of at least ${PASSWORD_MIN_LENGTH} characters.`
  if (password.length > PASSWORD_MAX_LENGTH) return `Choose a password of at most ${PASSWORD_MAX_LENGTH} characters.`
  return undefined
}
