// Events accepted while a batch gathers (a turn of the ingress loop, or a few) travel as one packed entry. These tests check that packing
// loses nothing where it matters: rate limits admit exactly the right events into the entry, and
// an event that cannot be stored is retried and dead-lettered alone, not with its pack.
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { envelopesFromFields, packedEntryFields, packedRecord, type EventEnvelope } from '../../../shared/domain/event.js'
import { groupKeys } from '../../../shared/streams/names.js'
import { GROUPS } from '../../../shared/topology.js'
import { EventQueue } from '../../../services/ingress/event-queue.js'
import { postEvent, queuedEvents, sampleEvent, startTestStack, waitFor, type TestStack } from '../../helpers/stack.js'

/** The grouper's dead letters, once there are any (15 s at most). */
function deadLetters(stack: TestStack): Promise<Array<[string, string[]]>> {
  const dead = groupKeys(stack.keys.events, GROUPS.grouper).dead
  return waitFor(async () => {
    const rows = (await stack.redis.xrange(dead, '-', '+')) as Array<[string, string[]]>
    return rows.length > 0 ? rows : undefined
  }, 15_000, 50)
}

t.test('events arriving together share one entry, holding exactly the events the rate limit admitted', async (t) => {
  const stack = await startTestStack(t, { env: { SVC_EVENTS_PER_KEY_PER_MINUTE: '4' } })
  const headers = { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey }
  const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => postEvent(stack.baseUrl, sampleEvent({ n: i }), headers)))
  const accepted = answers.filter((a) => a.status === 202).map((a) => a.body.id as string)
  t.equal(accepted.length, 4)
  const entries = (await stack.redis.xrange(stack.keys.events, '-', '+')) as Array<[string, string[]]>
  const stored = entries.flatMap(([, flat]) => {
    const fields: Record<string, string> = {}
    for (let i = 0; i < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!
    return envelopesFromFields(fields).envelopes
  })
  t.same(stored.map((e) => e.id).sort(), [...accepted].sort(), 'the stream holds the admitted events and only them')
  t.ok(entries.length < accepted.length, `packed: ${entries.length} entries for ${accepted.length} events`)
  t.ok(stored.every((e) => JSON.parse(e.body).n !== undefined), 'each body arrived whole')
})

t.test('a packed entry with an event that cannot be stored is split: the others are stored, the bad one alone is dead-lettered', async (t) => {
  const stack = await startTestStack(t, { ingress: false, env: { SVC_STREAM_MAX_ATTEMPTS: '2', SVC_STREAM_RETRY_BASE_MS: '50' } })
  const envelope = (projectId: string): EventEnvelope => ({ id: randomUUID(), projectId, keyId: 'seede2e00001', receivedAt: Date.now(), body: JSON.stringify(sampleEvent({ error: { type: 'TypeError', message: `m ${randomUUID()}`, stack: '' } })) })
  // A project that does not exist: its issue cannot be written (foreign key), every time.
  const poison = envelope('99999999-9999-4999-8999-999999999999')
  const good = [envelope(stack.projectId), envelope(stack.projectId), envelope(stack.projectId)]
  const pack = [good[0]!, poison, good[1]!, good[2]!]
  await stack.redis.xadd(stack.keys.events, '*', ...packedEntryFields(pack.map(packedRecord)))
  await stack.startWorker()

  const deadEntries = await deadLetters(stack)
  const { rows } = await stack.db.query<{ id: string }>('SELECT id FROM events ORDER BY id')
  t.same(rows.map((r) => r.id).sort(), good.map((e) => e.id).sort(), 'the three good events are stored, each once')
  t.equal(deadEntries.length, 1, 'one dead letter')
  const fields = deadEntries[0]![1]
  t.equal(fields[fields.indexOf('id') + 1], poison.id, 'and it is the bad event alone')
  t.notOk(fields.includes('events'), 'not the pack')
})

t.test('an entry in a pack encoding this version cannot read is dead-lettered whole, never skipped', async (t) => {
  const stack = await startTestStack(t, { ingress: false, env: { SVC_STREAM_MAX_ATTEMPTS: '2', SVC_STREAM_RETRY_BASE_MS: '50' } })
  await stack.redis.xadd(stack.keys.events, '*', 'n', '3', 'encoding', 'zstd64', 'events', 'KLUv/QBYAQAA')
  await stack.startWorker()
  const rows = await deadLetters(stack)
  const fields = rows[0]![1]
  t.equal(fields[fields.indexOf('encoding') + 1], 'zstd64', 'the entry is kept as it came, for a replay after an upgrade')
  t.equal(fields[fields.indexOf('n') + 1], '3')
  t.match(fields[fields.indexOf('__error') + 1], /encoding "zstd64" is unknown.*svc dead-letters --replay/)
})

t.test('large events arriving together are packed in pieces of about a MiB, each added whole', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const redis = stack.redis.duplicate()
  t.teardown(() => redis.disconnect())
  const queue = new EventQueue(redis, stack.keys, { perKey: 1000, perProjectDefault: 0 })
  const body = JSON.stringify(sampleEvent({ error: { type: 'Error', message: 'x'.repeat(400 * 1024), stack: '' } }))
  // One synchronous turn: every event is waiting when the queue decides how to pack.
  const results = await Promise.all(Array.from({ length: 6 }, () => queue.enqueue({ id: randomUUID(), projectId: stack.projectId, keyId: 'seede2e00001', receivedAt: Date.now(), body })))
  t.ok(results.every((r) => r.ok), 'all six added')
  const entries = (await stack.redis.xrange(stack.keys.events, '-', '+')) as Array<[string, string[]]>
  const sizes = entries.map(([, flat]) => Number(flat[flat.indexOf('n') + 1]))
  t.same(sizes, [3, 3], 'two packs of three: each closed once it passed a MiB of bodies')
  t.equal(await queuedEvents(stack), 6)
})

t.test('a batch gathers events over the turns that keep bringing them, and goes at the first turn that brings none', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const redis = stack.redis.duplicate()
  t.teardown(() => redis.disconnect())
  // A cap far above a turn's length, so a slow turn on a loaded machine does not end the gathering.
  const queue = new EventQueue(redis, stack.keys, { perKey: 1000, perProjectDefault: 0 }, 2000)
  const envelope = (): EventEnvelope => ({ id: randomUUID(), projectId: stack.projectId, keyId: 'seede2e00001', receivedAt: Date.now(), body: JSON.stringify(sampleEvent()) })
  const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))
  const entrySizes = async (): Promise<number[]> => ((await stack.redis.xrange(stack.keys.events, '-', '+')) as Array<[string, string[]]>).map(([, flat]) => Number(flat[flat.indexOf('n') + 1]))

  // Three events, one a turn: each turn brought one, so the batch waits for the next.
  const first = [queue.enqueue(envelope())]
  await nextTurn()
  first.push(queue.enqueue(envelope()))
  await nextTurn()
  first.push(queue.enqueue(envelope()))
  t.ok((await Promise.all(first)).every((r) => r.ok))
  t.same(await entrySizes(), [3], 'three events of three turns in one entry')

  // A lone event is not held: it goes after one turn that brought nothing.
  const started = performance.now()
  t.ok((await queue.enqueue(envelope())).ok)
  t.ok(performance.now() - started < 500, 'a lone event went at once')
  t.same(await entrySizes(), [3, 1])

  // Events that never stop coming go once the batch is as old as the cap (a millisecond in service), not later.
  const capped = new EventQueue(redis, stack.keys, { perKey: 1000, perProjectDefault: 0 }, 50)
  let stop = false
  const stream: Array<Promise<unknown>> = []
  const feed = (): void => {
    if (stop) return
    stream.push(capped.enqueue(envelope()))
    setImmediate(feed)
  }
  feed()
  await waitFor(async () => ((await entrySizes()).length >= 4 ? true : undefined), 5000, 5)
  stop = true
  await Promise.all(stream)
  const sizes = (await entrySizes()).slice(2)
  t.ok(sizes.length >= 2, `a steady feed became ${sizes.length} entries, not one held batch`)
  t.equal(sizes.reduce((a, b) => a + b, 0), stream.length, 'every event of the feed is on the stream once')
})
