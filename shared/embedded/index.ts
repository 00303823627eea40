/** Embedded defaults for one machine without Docker: PGlite and a spawned redis-server. */
export { lockDir, type DirLock } from './dir-lock.js'
export { startEmbeddedPostgres, type EmbeddedService } from './postgres.js'
export { REDIS_MISSING, startEmbeddedRedis } from './redis.js'
