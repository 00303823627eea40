import t from 'tap'
import { hostname } from 'node:os'
import { migrate } from '../../shared/db/migrate.js'
import { streamKeys } from '../../shared/redis.js'
import { applySeed } from '../../shared/db/seed.js'
import { GROUPS } from '../../shared/topology.js'
import { TEST_REDIS_URL } from '../helpers/env.js'
import { freePort, startSvc } from '../helpers/processes.js'
import { createTestDatabase } from '../helpers/stack.js'
import { createDb } from '../../shared/db/index.js'
import { createRedis } from '../../shared/redis.js'
import { SEED_INGEST_KEY } from '../../shared/db/seed.js'
import { sleep, startSteadyLoad } from './load.js'
import { faultEnv, holdMidBatch, linesMatching, ownPrefix } from './stack.js'
import { expectStoredOnce } from './verify.js'

// Bounded: a scenario that has not recovered by then has failed (the runner's default is 2 min a file).
t.setTimeout(5 * 60_000)

const RATE = 150

for (const workers of [2, 3]) {
  t.test(`${workers} worker processes on one Redis and one PostgreSQL run side by side, and when the one holding a batch is killed with -9 a sibling stores its events within 30 s: nothing lost, nothing stored twice`, async (t) => {
    const databaseUrl = await createTestDatabase(t)
    const db = createDb(databaseUrl, { max: 2 })
    t.teardown(() => db.close())
    await migrate(db)
    await applySeed(db)
    const redis = createRedis(TEST_REDIS_URL)
    t.teardown(() => redis.disconnect())
    const prefix = ownPrefix(t, redis)
    const env = faultEnv(databaseUrl, TEST_REDIS_URL, prefix)
    const port = await freePort()
    await startSvc(t, 'ingress', { ...env, INGESTION_PORT: String(port), SVC_INGESTION_HOST: '127.0.0.1' }, /ingress listening/)
    const started = []
    for (let i = 0; i < workers; i++) started.push(await startSvc(t, 'worker', { ...env, WORKER_HEALTH_PORT: String(await freePort()) }, /worker started/))

    const load = startSteadyLoad(`http://127.0.0.1:${port}`, SEED_INGEST_KEY, RATE)
    await sleep(4000)
    const batch = await holdMidBatch(t, { databaseUrl, redis, prefix })
    // The process whose consumer holds the batch: consumer names start with host and pid.
    const [, , , consumers] = (await redis.xpending(streamKeys(prefix).events, GROUPS.grouper)) as [number, string, string, Array<[string, string]>]
    const holder = started.find((w) => consumers.some(([name]) => name.startsWith(`${hostname()}-${w.pid}-`)))
    t.ok(holder, `one worker holds the batch (${batch.pending} entries)`)
    process.kill(holder!.pid, 'SIGKILL')
    await batch.release()
    await sleep(8000)
    const report = await load.stop()
    const stored = await expectStoredOnce(t, { db, redis, prefix }, report, `${workers} workers, one killed`)
    t.ok(stored.slowestMs <= 30_000, `a sibling stored the killed worker's events within 30 s of their receipt (slowest ${stored.slowestMs} ms)`)
    const survivors = started.filter((w) => w !== holder)
    t.ok(survivors.some((w) => linesMatching(w.output(), /took over entries another consumer stopped renewing/) > 0), 'a surviving worker logged taking them over')
    t.equal(await holder!.exited, 'SIGKILL', 'the killed worker is gone')
  })
}
