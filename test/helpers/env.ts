/**
 * Where tests find their databases. `npm test` (scripts/test.mjs) provisions throwaway PostgreSQL
 * and Redis and exports TEST_DATABASE_URL / TEST_REDIS_URL; running one file by hand falls back
 * to the machine's local servers.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

/**
 * The environment for a child process that runs the real `svc` command: tap's loader hooks
 * (NODE_OPTIONS) are removed so the child starts exactly as a user's would.
 */
export function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra }
  delete env.NODE_OPTIONS
  for (const name of Object.keys(env)) if (name.startsWith('TAP')) delete env[name]
  for (const [name, value] of Object.entries(extra)) if (value === undefined) delete env[name]
  return env
}
