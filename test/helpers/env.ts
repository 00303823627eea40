/**
 * Where tests find their databases. `npm test` (scripts/test.mjs) provisions throwaway PostgreSQL
 * and Redis and exports TEST_DATABASE_URL / TEST_REDIS_URL; running one file by hand falls back
 * to the machine's local servers.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
