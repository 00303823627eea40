// The storage gauges' count (docs/metrics.md "Storage"): one worker of the fleet counts each
// interval under a Redis lock and shares the figures; every worker serves the same ones from
// memory, and keeps them while Redis is away.
import t, { type Test } from 'tap'
import { StorageGauges, type StorageGaugeTiming } from '../../../services/worker/storage-gauges.js'
import type { StorageFigures } from '../../../services/worker/storage-figures.js'
import { SEED_PROJECT_ID } from '../../../shared/db/seed.js'
import { createRedis } from '../../../shared/redis.js'
import { seedStorage } from '../../helpers/events-seed.js'
import { startTestStack, waitFor, type TestStack } from '../../helpers/stack.js'

/** Two workers' gauges on the same Redis and database, each counting its own passes; stopped with the test. */
function twoWorkers(t: Test, stack: TestStack, timing: StorageGaugeTiming): { gauges: StorageGauges[]; counts: number[] } {
  const counts = [0, 0]
  const gauges = counts.map((_, i) => {
    const g = new StorageGauges({ db: stack.db, redis: stack.redis, keys: stack.keys }, timing)
    g.on('counted', () => counts[i]!++)
    g.on('error', (error: unknown) => t.fail(`worker ${i}: ${String(error)}`))
    return g
  })
  t.teardown(() => Promise.all(gauges.map((g) => g.stop())))
  return { gauges, counts }
}

const seedFigures = (figures: StorageFigures | undefined) => figures?.projects.get(SEED_PROJECT_ID)

t.test("of two workers' storage gauges, one counts the projects and both serve the figures it shared", async (t) => {
  const stack = await startTestStack(t)
  await seedStorage(stack, SEED_PROJECT_ID)
  // An interval no test outlasts: only the count each worker tries at start can run.
  const { gauges, counts } = twoWorkers(t, stack, { everyMs: 10 * 60_000, refreshMs: 50 })
  for (const g of gauges) g.start()
  await waitFor(async () => gauges.every((g) => g.figures !== undefined), 2000)
  t.equal(counts[0]! + counts[1]!, 1, `one worker counted (${counts.join(' and ')}), not both`)
  const [a, b] = gauges.map((g) => g.figures!)
  t.equal(a!.countedAt.getTime(), b!.countedAt.getTime(), 'both serve the same count')
  t.same(seedFigures(a), seedFigures(b), 'with the same figures')
  t.match(seedFigures(b), { events: 3, recordingsBytes: 2048, refused: 4, sampled: 9 })
  const ageMs = Date.now() - seedFigures(b)!.oldestAt!.getTime()
  t.ok(ageMs >= 3 * 3600_000 - 60_000 && ageMs < 4 * 3600_000, `the oldest event's receipt came through (${ageMs} ms ago)`)
  const keptMs = await stack.redis.pttl(stack.keys.storageFigures)
  t.ok(keptMs > 20 * 60_000 && keptMs <= 30 * 60_000, `the shared figures are kept three intervals (${keptMs} ms left)`)
})

t.test('a fleet of two workers counts once per interval, not once per worker', async (t) => {
  const stack = await startTestStack(t)
  await seedStorage(stack, SEED_PROJECT_ID)
  const { gauges, counts } = twoWorkers(t, stack, { everyMs: 300, refreshMs: 50 })
  for (const g of gauges) g.start()
  await new Promise((resolve) => setTimeout(resolve, 1600))
  for (const g of gauges) await g.stop()
  const total = counts[0]! + counts[1]!
  // The first try at start plus five ticks: about 6 for the fleet, where each worker counting alone would make 12.
  t.ok(total >= 2 && total <= 7, `about one count per 0.3 s interval in 1.6 s (${counts.join(' + ')} = ${total})`)
  t.ok(gauges.every((g) => seedFigures(g.figures)?.events === 3), 'and both workers serve the figures')
})

t.test('a worker whose Redis is away keeps serving the last figures, and stops cleanly', async (t) => {
  const stack = await startTestStack(t)
  await seedStorage(stack, SEED_PROJECT_ID)
  const redis = createRedis(stack.redisUrl, { maxRetriesPerRequest: 1 })
  const gauges = new StorageGauges({ db: stack.db, redis, keys: stack.keys }, { everyMs: 10 * 60_000, refreshMs: 25 })
  const outages: unknown[] = []
  gauges.on('outage', (error: unknown) => outages.push(error))
  gauges.on('error', (error: unknown) => t.fail(String(error)))
  gauges.start()
  const counted = await waitFor(async () => gauges.figures, 2000)
  redis.disconnect()
  await waitFor(async () => outages.length >= 2, 500)
  t.equal(gauges.figures, counted, 'the figures counted before stay')
  t.equal(seedFigures(gauges.figures)?.events, 3)
  await gauges.stop()
  t.pass('stop() returns with Redis away')
})
