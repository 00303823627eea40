/** Redis connections and the key names every actor shares, all under one configurable prefix. */
import { Redis, type RedisOptions } from 'ioredis'

/** Opens a connection; unix:///path URLs connect over a socket (the embedded Redis). */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  if (url.startsWith('unix:')) {
    return new Redis({ path: new URL(url).pathname, ...options })
  }
  return new Redis(url, options)
}

/** Names of the streams and keys, derived from the prefix so tests and stacks never collide. */
export function streamKeys(prefix: string) {
  return Object.freeze({
    events: `${prefix}stream:events`,
    rateLimit: (keyId: string, window: number) => `${prefix}rl:ev:${keyId}:${window}`,
  })
}
export type StreamKeys = ReturnType<typeof streamKeys>
