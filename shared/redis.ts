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
    /** Fixed-window counters of the setup-session API (scope: reg by address, call by session). */
    agentRateLimit: (scope: 'reg' | 'call', subject: string, window: number) => `${prefix}rl:agent:${scope}:${subject}:${window}`,
    /** Long polls a setup session holds now. */
    agentWaiters: (pollId: string) => `${prefix}agent:waiters:${pollId}`,
    /** Pub/sub channels that wake long polls: a session changed; a project's facts changed. */
    wakeSession: (pollId: string) => `${prefix}wake:session:${pollId}`,
    wakeProject: (projectId: string) => `${prefix}wake:project:${projectId}`,
  })
}
export type StreamKeys = ReturnType<typeof streamKeys>

/** Publishes a wake-up for held long polls; a failure only delays them until their deadline, so it is swallowed. */
export async function publishWake(redis: Redis, channel: string): Promise<void> {
  await redis.publish(channel, '1').catch(() => 0)
}
