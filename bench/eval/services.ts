/**
 * What the investigation eval runs on outside the harness: a teardown list that stands in for tap's
 * (startHarness registers its cleanups with it; they run last-registered first, as tap runs them),
 * and the databases: TEST_DATABASE_URL / TEST_REDIS_URL when set, else a throwaway PostgreSQL and
 * Redis started as `npm test` starts them (scripts/throwaway-services.mjs).
 */
import { startPostgres, startRedis } from '../../scripts/throwaway-services.mjs'

/** Cleanups run in reverse order of registration; a failing one does not stop the rest. */
export class Teardowns {
  #fns: Array<() => unknown> = []
  #ran = false

  teardown(fn: () => unknown): void {
    this.#fns.push(fn)
  }

  /** Runs every cleanup once; answers the failures' messages. */
  async run(): Promise<string[]> {
    if (this.#ran) return []
    this.#ran = true
    const failures: string[] = []
    for (let fn = this.#fns.pop(); fn; fn = this.#fns.pop()) {
      try {
        await fn()
      } catch (error) {
        failures.push((error as Error).message ?? String(error))
      }
    }
    return failures
  }
}

/**
 * Sets process.env.TEST_DATABASE_URL and TEST_REDIS_URL (starting throwaway servers for the unset
 * ones) before test/helpers/env.ts is first imported, and says where they came from (never the
 * URLs: they may carry a password).
 */
export async function provideDatabases(teardowns: Teardowns): Promise<string> {
  const register = (fn: () => Promise<void>): void => teardowns.teardown(fn)
  const given = { postgres: Boolean(process.env.TEST_DATABASE_URL), redis: Boolean(process.env.TEST_REDIS_URL) }
  if (!given.postgres) process.env.TEST_DATABASE_URL = await startPostgres(register)
  if (!given.redis) process.env.TEST_REDIS_URL = await startRedis(register)
  const where = (name: string, fromEnv: boolean, variable: string): string => `${name} ${fromEnv ? `from ${variable}` : 'throwaway'}`
  return `${where('PostgreSQL', given.postgres, 'TEST_DATABASE_URL')}, ${where('Redis', given.redis, 'TEST_REDIS_URL')}`
}
