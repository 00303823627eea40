import { randomBytes } from 'node:crypto'
import t, { type Test } from 'tap'
import { createRedis } from '../../../shared/redis.js'
import { ensureGroup, StreamConsumer, type StreamEntry } from '../../../shared/streams/index.js'
import { pruneConsumers } from '../../../shared/streams/groups.js'
import { TEST_REDIS_URL } from '../../helpers/env.js'
import { waitFor } from '../../helpers/stack.js'

const GROUP = 'lease-test'

async function freshStream(t: Test): Promise<{ redis: ReturnType<typeof createRedis>; stream: string }> {
  const redis = createRedis(TEST_REDIS_URL)
  const stream = `svctest:${randomBytes(5).toString('hex')}:stream`
  await ensureGroup(redis, stream, GROUP)
  t.teardown(async () => {
    const keys = await redis.keys(`${stream}*`)
    if (keys.length > 0) await redis.del(...keys)
    redis.disconnect()
  })
  return { redis, stream }
}

function consumer(t: Test, redis: ReturnType<typeof createRedis>, stream: string, name: string, handler: (entries: StreamEntry[], context: { signal: AbortSignal }) => Promise<void>, leaseMs: number): StreamConsumer {
  const c = new StreamConsumer({ redis, stream, group: GROUP, consumer: name, handler, leaseMs, blockMs: 50, retryBaseMs: 60_000 })
  c.on('error', (error: unknown) => t.fail(`consumer ${name} error: ${(error as Error).message}`))
  t.teardown(() => c.stop())
  return c
}

/** Which consumer each pending id of the group is with. */
async function owners(redis: ReturnType<typeof createRedis>, stream: string): Promise<Map<string, string>> {
  const rows = (await redis.xpending(stream, GROUP, '-', '+', 100)) as Array<[string, string, number, number]>
  return new Map(rows.map(([id, owner]) => [id, owner]))
}

t.test('a handler busy for several leases keeps its entries: the heartbeat renews them, so no other consumer takes them', async (t) => {
  const { redis, stream } = await freshStream(t)
  const lease = 300
  const seenBy: Record<string, string[]> = { busy: [], idle: [] }
  let finish!: () => void
  const finished = new Promise<void>((resolve) => (finish = resolve))
  const busy = consumer(t, redis, stream, 'busy', async (entries) => {
    seenBy.busy!.push(...entries.map((e) => e.id))
    await finished // a model call of minutes, in miniature: ten leases
  }, lease)
  await busy.start()
  const id = (await redis.xadd(stream, '*', 'n', '1'))!
  await waitFor(async () => seenBy.busy!.includes(id), 5000, 10)
  const idle = consumer(t, redis, stream, 'idle', async (entries) => {
    seenBy.idle!.push(...entries.map((e) => e.id))
  }, lease)
  await idle.start()
  await new Promise((resolve) => setTimeout(resolve, lease * 10))
  t.same(seenBy.idle, [], 'the other consumer, reclaiming every half lease, never got the entry')
  t.equal((await owners(redis, stream)).get(id), 'busy', 'it is still pending with the busy consumer')
  const pending = (await redis.xpending(stream, GROUP, '-', '+', 1)) as Array<[string, string, number, number]>
  t.equal(Number(pending[0]?.[3]), 1, 'renewals do not count as deliveries')
  finish()
  await waitFor(async () => (await owners(redis, stream)).size === 0, 5000, 10)
  t.same(seenBy.busy, [id], 'handled once, by the consumer that read it')
})

t.test("a dead consumer's entries are taken by a live one once the lease runs out, on their second attempt", async (t) => {
  const { redis, stream } = await freshStream(t)
  const lease = 400
  for (let i = 0; i < 5; i++) await redis.xadd(stream, '*', 'n', String(i))
  // A consumer that read and died at once: its entries are pending, and nobody renews them.
  await redis.xreadgroup('GROUP', GROUP, 'dead', 'COUNT', 10, 'STREAMS', stream, '>')
  const diedAt = Date.now()
  const taken: StreamEntry[] = []
  let takenAt = 0
  const live = consumer(t, redis, stream, 'live', async (entries) => {
    taken.push(...entries)
    takenAt = Date.now()
  }, lease)
  await live.start()
  await waitFor(async () => taken.length === 5, 5000, 10)
  t.ok(taken.every((e) => e.attempt === 2), 'each is on its second attempt')
  t.ok(takenAt - diedAt >= lease, 'not before the lease ran out')
  t.comment(`taken ${takenAt - diedAt} ms after the death (lease ${lease} ms; bound: 1.5 leases plus a batch)`)
  await waitFor(async () => (await owners(redis, stream)).size === 0, 5000, 10)
})

t.test('a consumer that stalled past its lease learns it lost the entries: its signal aborts, and it does not take them back', async (t) => {
  const { redis, stream } = await freshStream(t)
  const lease = 300
  let aborted: unknown
  let release!: () => void
  const stalled = consumer(t, redis, stream, 'stalled', async (_entries, { signal }) => {
    signal.addEventListener('abort', () => (aborted = signal.reason))
    await new Promise<void>((resolve) => (release = resolve))
  }, lease)
  const lost: unknown[] = []
  stalled.on('lost', (info: unknown) => lost.push(info))
  await stalled.start()
  const id = (await redis.xadd(stream, '*', 'n', '1'))!
  await waitFor(async () => (await owners(redis, stream)).get(id) === 'stalled', 5000, 10)
  // What a consumer that reclaims after the lease does, done here at once: the entry changes hands.
  await redis.xclaim(stream, GROUP, 'rescuer', 0, id)
  await waitFor(async () => aborted !== undefined, 5000, 10)
  t.match(String((aborted as Error).message), /lease lost/, 'the handler was told why')
  t.same(lost, [{ entries: 1 }], 'and the consumer reported it')
  await new Promise((resolve) => setTimeout(resolve, lease * 2)) // renewals keep running while the handler does
  t.equal((await owners(redis, stream)).get(id), 'rescuer', 'the entry stays with the consumer that took it')
  release()
})

t.test('consumers that hold nothing and were not seen for a while are forgotten; one holding entries never is', async (t) => {
  const { redis, stream } = await freshStream(t)
  for (let i = 0; i < 2; i++) await redis.xadd(stream, '*', 'n', String(i))
  const read = (await redis.xreadgroup('GROUP', GROUP, 'finished', 'COUNT', 1, 'STREAMS', stream, '>')) as Array<[string, Array<[string, string[]]>]>
  await redis.xack(stream, GROUP, read[0]![1][0]![0])
  await redis.xreadgroup('GROUP', GROUP, 'holding', 'COUNT', 1, 'STREAMS', stream, '>')
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.equal(await pruneConsumers(redis, stream, GROUP, 10_000), 0, 'none idle long enough yet')
  t.equal(await pruneConsumers(redis, stream, GROUP, 20), 1, 'one forgotten')
  const names = ((await redis.xinfo('CONSUMERS', stream, GROUP)) as unknown[][]).map((row) => row[1])
  t.same(names, ['holding'], 'the consumer holding an entry stays, with its entry pending')
  t.equal(await pruneConsumers(redis, 'svctest:no-such-stream', GROUP, 0), 0, 'a stream that does not exist prunes nothing')
})
