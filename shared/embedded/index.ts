/** Embedded defaults for one machine without Docker: PGlite and a spawned redis-server. */
export { DirLockedError, lockDir, type DirLock } from './dir-lock.js'
export { findFreePort } from './endpoint.js'
export { startEmbeddedPostgres, type EmbeddedPostgres } from './postgres.js'
export { REDIS_MISSING, startEmbeddedRedis, type EmbeddedRedisOptions } from './redis.js'
export type { EmbeddedOptions, EmbeddedService } from './types.js'
