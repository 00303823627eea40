/**
 * The stack a fault scenario runs: `svc up` with DATABASE_URL, as an operator runs it on one
 * machine (the worker and the ingress as supervised processes), on a database and Redis key prefix
 * of its own, with connections for the checks.
 */
import { randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'
import pg from 'pg'
import type { Test } from 'tap'
import { createDb } from '../../shared/db/index.js'
import { createRedis, streamKeys } from '../../shared/redis.js'
import { SEED_INGEST_KEY } from '../../shared/db/seed.js'
import { GROUPS } from '../../shared/topology.js'
import { TEST_REDIS_URL } from '../helpers/env.js'
import { patience } from '../helpers/patience.js'
import { startSvcUp, textOf, type SvcUp } from '../helpers/processes.js'
import { createTestDatabase } from '../helpers/stack.js'
import type { Where } from './verify.js'

export interface FaultStack extends SvcUp, Where {
  databaseUrl: string
  redisUrl: string
  key: string
  /** The /health restart counts of the ingress and the worker. */
  restarts(): Promise<{ ingress: number; worker: number }>
  /** The pids of the worker and the ingress now (undefined for one waiting to be restarted). */
  pids(): { worker: number | undefined; ingress: number | undefined }
}

/** Environment every fault stack shares: no rate limit in the way of the load, one ingress thread. */
export function faultEnv(databaseUrl: string, redisUrl: string, prefix: string): Record<string, string> {
  return { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix, SVC_INGRESS_THREADS: '1', SVC_EVENTS_PER_KEY_PER_MINUTE: '1000000', LOG_LEVEL: 'info' }
}

/** A fresh key prefix, removed from redis when the test ends. */
export function ownPrefix(t: Test, redis: Redis): string {
  const prefix = `svcfault:${randomBytes(5).toString('hex')}:`
  t.teardown(async () => {
    const keys = await redis.keys(`${prefix}*`).catch(() => [])
    if (keys.length > 0) await redis.del(...keys).catch(() => {})
  })
  return prefix
}

/** `svc up` on a fresh database (or databaseUrl) and Redis (TEST_REDIS_URL unless redisUrl), with env added to faultEnv. */
export async function supervisedStack(t: Test, options: { databaseUrl?: string; redisUrl?: string; env?: Record<string, string> } = {}): Promise<FaultStack> {
  const databaseUrl = options.databaseUrl ?? (await createTestDatabase(t))
  const redisUrl = options.redisUrl ?? TEST_REDIS_URL
  const redis = createRedis(redisUrl)
  t.teardown(() => redis.disconnect())
  const prefix = ownPrefix(t, redis)
  const up = await startSvcUp(t, { ...faultEnv(databaseUrl, redisUrl, prefix), ...options.env })
  const db = createDb(databaseUrl, { max: 2 })
  t.teardown(() => db.close())
  return {
    ...up,
    databaseUrl,
    redisUrl,
    key: SEED_INGEST_KEY,
    db,
    redis,
    prefix,
    pids: () => ({ worker: up.part('worker'), ingress: up.part('ingress') }),
    async restarts() {
      const ingress = /"restarts":(\d+)/.exec(await textOf(`${up.base}/health`))?.[1]
      const worker = /^restarts: (\d+)$/m.exec(await textOf(up.health))?.[1]
      return { ingress: Number(ingress ?? NaN), worker: Number(worker ?? NaN) }
    },
  }
}

/** Count of log lines in output whose message matches pattern. */
export function linesMatching(output: string, pattern: RegExp): number {
  return output.split('\n').filter((line) => pattern.test(line)).length
}

/** The warnings and errors in output, as "message ×count" by component: what an operator would have read. */
export function warningsIn(output: string): string[] {
  const counts = new Map<string, number>()
  for (const line of output.split('\n')) {
    const match = /"level":"(warn|error)","msg":"([^"]*)".*?"component":"([^"]*)"/.exec(line)
    if (match) counts.set(`${match[3]} ${match[1]}: ${match[2]}`, (counts.get(`${match[3]} ${match[1]}: ${match[2]}`) ?? 0) + 1)
  }
  return [...counts].map(([what, n]) => `${what} ×${n}`)
}

/**
 * Catches the worker mid-batch, for certain: holds the events table (SHARE lock) so the next batch
 * waits on its insert with its entries read and unacknowledged, and resolves once some are. The
 * fault goes in then; release() lets go of the table (harmless if the fault ended the session).
 */
export async function holdMidBatch(t: Test, stack: Pick<FaultStack, 'databaseUrl' | 'redis' | 'prefix'>): Promise<{ pending: number; release(): Promise<void> }> {
  const blocker = new pg.Client({ connectionString: stack.databaseUrl, application_name: 'fault-suite-blocker' })
  blocker.on('error', () => {}) // a fault that ends every session ends this one too
  await blocker.connect()
  t.teardown(() => blocker.end().catch(() => {}))
  await blocker.query('BEGIN')
  await blocker.query('LOCK TABLE events IN SHARE MODE')
  const stream = streamKeys(stack.prefix).events
  const deadline = Date.now() + patience(10_000)
  let pending = 0
  while (pending === 0 && Date.now() < deadline) {
    const [count] = (await stack.redis.xpending(stream, GROUPS.grouper)) as [number, ...unknown[]]
    pending = Number(count)
    if (pending === 0) await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return { pending, release: () => blocker.query('COMMIT').then(() => undefined, () => undefined) }
}
