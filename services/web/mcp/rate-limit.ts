/**
 * Requests per api key in fixed one-minute windows, counted in Redis so every ingress process shares
 * the count (as the setup sessions' limits are). Every POST to /mcp counts, initialise and list
 * included: a client's session is a few of those plus its tool calls.
 */
import type { Redis } from 'ioredis'
import { MINUTE } from '../../../shared/time.js'
import type { StreamKeys } from '../../../shared/redis.js'
import { ToolServerError } from './errors.js'

/** Counts one request of keyId; throws 429 rate_limited with the seconds left in the window when over. */
export async function countToolRequest(redis: Redis, keys: StreamKeys, keyId: string, perMinute: number): Promise<void> {
  const now = Date.now()
  const window = Math.floor(now / MINUTE)
  const key = keys.toolRateLimit(keyId, window)
  const [[, count]] = (await redis.multi().incr(key).expire(key, 61).exec()) as [[unknown, number], unknown]
  if (count > perMinute) throw new ToolServerError('rate_limited', { retryAfter: Math.max(1, Math.ceil(((window + 1) * MINUTE - now) / 1000)) })
}
