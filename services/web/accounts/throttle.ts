/**
 * Modest fixed-window counters in Redis around password checks and sign-ups, so the sign-in form
 * cannot be used to try passwords at speed. A request over a limit is refused before the password
 * is looked at: a right guess and a wrong one then look the same.
 */
import type { Redis } from 'ioredis'
import { MINUTE, HOUR } from '../../../shared/time.js'
import { AccountError } from './errors.js'
import { hashToken } from './tokens.js'

export interface ThrottleDeps {
  redis: Redis
  /** Prefix of this stack's Redis keys. */
  keyPrefix: string
}

interface Limit {
  readonly windowMs: number
  readonly max: number
}

/** Reasoning: a person mistypes a few times; a guesser needs thousands. A shared office address gets more room. */
export const LIMITS = Object.freeze({
  signinPerEmail: { windowMs: 15 * MINUTE, max: 10 },
  signinPerAddress: { windowMs: 15 * MINUTE, max: 30 },
  signupPerAddress: { windowMs: HOUR, max: 10 },
} satisfies Record<string, Limit>)

async function count(deps: ThrottleDeps, name: string, subject: string, limit: Limit): Promise<number | undefined> {
  const now = Date.now()
  const window = Math.floor(now / limit.windowMs)
  const key = `${deps.keyPrefix}rl:account:${name}:${subject}:${window}`
  const [[, value]] = (await deps.redis.multi().incr(key).pexpire(key, limit.windowMs + 1000).exec()) as [[unknown, number], unknown]
  if (value <= limit.max) return undefined
  return Math.max(1, Math.ceil(((window + 1) * limit.windowMs - now) / 1000))
}

function tooMany(retryAfter: number): AccountError {
  const minutes = Math.ceil(retryAfter / 60)
  return new AccountError('throttled', { retryAfter, message: `Too many attempts. Wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.` })
}

/** Counts one sign-in attempt for the address and the email; throws AccountError throttled when either is over. */
export async function countSigninAttempt(deps: ThrottleDeps, address: string, email: string): Promise<void> {
  // The email is hashed so the key list in Redis does not double as a list of addresses people typed.
  const emailKey = hashToken(email.trim().toLowerCase()).toString('base64url')
  const [byAddress, byEmail] = await Promise.all([count(deps, 'signin:addr', address, LIMITS.signinPerAddress), count(deps, 'signin:email', emailKey, LIMITS.signinPerEmail)])
  const wait = Math.max(byAddress ?? 0, byEmail ?? 0)
  if (wait > 0) throw tooMany(wait)
}

/** Counts one sign-up from the address; throws AccountError throttled when over. */
export async function countSignup(deps: ThrottleDeps, address: string): Promise<void> {
  const wait = await count(deps, 'signup:addr', address, LIMITS.signupPerAddress)
  if (wait !== undefined) throw tooMany(wait)
}
