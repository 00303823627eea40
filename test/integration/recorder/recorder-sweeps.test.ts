import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import { createRecorder, type Recorder } from '../../../services/recorder/index.js'
import { scrapeMetrics } from '../../../shared/metrics.js'
import { createObjectStore, ObjectStoreUnavailable, type ObjectStore } from '../../../shared/object-store.js'
import { DAY, HOUR, MINUTE } from '../../../shared/time.js'
import { parseMetrics } from '../../helpers/metrics.js'
import { capturedLog, chunkOf, recorderDrained, recorderGroup, sendChunk } from '../../helpers/browser/recording-chunks.js'
import { startTestStack } from '../../helpers/stack.js'

/** A stack with the fs object store; recorders made on it share the test's log lines. */
async function sweepStack(t: Test) {
  const stack = await startTestStack(t, { ingress: false })
  const { log, lines } = capturedLog()
  const objects = await createObjectStore(stack.config.objectStore)
  await recorderGroup(stack)
  const recorder = async (store: ObjectStore = objects): Promise<Recorder> => {
    const made = createRecorder({ db: stack.db, objects: store, redis: stack.redis, keys: stack.keys, log, timing: stack.config.stream, settings: stack.config.recordings })
    t.teardown(() => made.stop())
    await made.start()
    return made
  }
  const failures = (): unknown[] => lines.filter((line) => line.msg === 'recording sweep failed; the next one tries again')
  return { stack, objects, recorder, lines, failures, place: { objects, redis: stack.redis, keys: stack.keys } }
}

/** The recorder's /health line. */
async function recordingsLine(recorder: Recorder): Promise<string> {
  return (await recorder.details!()).find((line) => line.startsWith('recordings:'))!
}

t.test('the sweep closes recordings no chunk reached for the idle time, and a late chunk reopens one', async (t) => {
  const { stack, recorder, failures, place } = await sweepStack(t)
  const one = await recorder()
  const [idle, busy] = [randomUUID(), randomUUID()]
  await sendChunk(place, chunkOf(stack.projectId, idle, 0, { firstAt: Date.now() - 40 * MINUTE, receivedAt: Date.now() - 31 * MINUTE }))
  await sendChunk(place, chunkOf(stack.projectId, busy, 0, { receivedAt: Date.now() - 29 * MINUTE }))
  await recorderDrained(stack)
  const closedAt = async (id: string): Promise<Date | null> => (await stack.db.query<{ closed_at: Date | null }>('SELECT closed_at FROM recordings WHERE id = $1', [id])).rows[0]!.closed_at
  t.match(await recordingsLine(one), /^recordings: open=2 closed=0 deleted=0 retention_days=30 idle_minutes=30$/, '/health shows both open')

  const sweptFrom = Date.now()
  await one.sweepNow()
  const closed = await closedAt(idle)
  t.ok(closed && closed.getTime() >= sweptFrom - 1000, 'the recording idle for 31 minutes is closed, as of the sweep')
  t.equal(await closedAt(busy), null, 'the one whose last chunk came 29 minutes ago stays open')
  t.match(await recordingsLine(one), /^recordings: open=1 closed=1 deleted=0 /, '/health counts the close')
  t.equal(parseMetrics(await scrapeMetrics()).value('svc_recordings_open'), 1, 'the open gauge reads the same')

  await sendChunk(place, chunkOf(stack.projectId, idle, 1))
  await recorderDrained(stack)
  t.equal(await closedAt(idle), null, 'a chunk arriving after the close reopens it')
  const { rows } = await stack.db.query<{ chunks: number; received_at: Date }>('SELECT chunks, received_at FROM recordings WHERE id = $1', [idle])
  t.equal(rows[0]!.chunks, 2)
  t.ok(Date.now() - rows[0]!.received_at.getTime() < 5 * MINUTE, 'and moves its arrival time, so the next sweep leaves it open')
  await one.sweepNow()
  t.equal(await closedAt(idle), null, 'the next sweep leaves it open')
  t.same(failures(), [], 'no sweep failed')
})

t.test('retention deletes old recordings, objects first and then rows, leaving newer ones; two sweepers at once share the work and delete each object once', async (t) => {
  const { stack, objects, recorder, failures, place } = await sweepStack(t)
  const deletions = new Map<string, number>()
  const counting: ObjectStore = {
    put: (key, body) => objects.put(key, body),
    get: (key) => objects.get(key),
    delete: async (keys) => {
      await objects.delete(keys)
      for (const key of keys) deletions.set(key, (deletions.get(key) ?? 0) + 1)
    },
  }
  const [a, b] = [await recorder(counting), await recorder(counting)]
  const old = Date.now() - 31 * DAY
  // More than two batches of 200, so both sweepers find work while the other holds its rows.
  const oldChunks = []
  for (let i = 0; i < 410; i++) {
    const id = randomUUID()
    for (let seq = 0; seq < (i % 50 === 0 ? 2 : 1); seq++) oldChunks.push(chunkOf(stack.projectId, id, seq, { firstAt: old + seq * 30_000, lastAt: old + seq * 30_000 + 20_000, receivedAt: old + seq * 30_000 + 25_000 }))
  }
  const recent = randomUUID()
  const recentChunks = [0, 1].map((seq) => chunkOf(stack.projectId, recent, seq, { firstAt: Date.now() - 29 * DAY }))
  for (const chunk of [...oldChunks, ...recentChunks]) await sendChunk(place, chunk)
  await recorderDrained(stack, 60_000)
  t.equal((await stack.db.query('SELECT 1 FROM recordings')).rowCount, 411, 'every recording is stored first')
  const before = parseMetrics(await scrapeMetrics()).value('svc_recordings_deleted_total')

  await Promise.all([a.sweepNow(), b.sweepNow()])
  t.same(failures(), [], 'neither sweeper failed')
  t.same((await stack.db.query<{ id: string }>('SELECT id FROM recordings')).rows, [{ id: recent }], 'only the recording active within 30 days is left')
  t.same((await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM recording_chunks')).rows[0]!.n, 2, 'with its two chunks')
  const missing = await Promise.all(oldChunks.map(async (chunk) => (await objects.get(chunk.key)) === undefined))
  t.equal(missing.filter(Boolean).length, oldChunks.length, 'every old chunk’s object is deleted')
  t.same(oldChunks.filter((chunk) => deletions.get(chunk.key) !== 1).map((chunk) => chunk.key), [], 'each exactly once')
  for (const chunk of recentChunks) t.ok(await objects.get(chunk.key), 'the recent recording’s objects stay')
  t.equal(recentChunks.filter((chunk) => deletions.has(chunk.key)).length, 0, 'and were never deleted')
  const deleted = await Promise.all([a, b].map(async (one) => Number(/deleted=(\d+)/.exec(await recordingsLine(one))![1])))
  t.equal(deleted[0]! + deleted[1]!, 410, `the two sweepers deleted 410 between them (${deleted.join(' and ')})`)
  t.equal(parseMetrics(await scrapeMetrics()).value('svc_recordings_deleted_total') - before, 410, 'and counted them once')
})

t.test('retention deletes nothing from the database while the object store is down, and everything once it is back', async (t) => {
  const { stack, recorder, failures, place, objects } = await sweepStack(t)
  const down: ObjectStore = {
    put: (key, body) => objects.put(key, body),
    get: (key) => objects.get(key),
    delete: async () => {
      throw new ObjectStoreUnavailable('the test store is down')
    },
  }
  const broken = await recorder(down)
  const id = randomUUID()
  const chunk = chunkOf(stack.projectId, id, 0, { firstAt: Date.now() - 40 * DAY })
  await sendChunk(place, chunk)
  await recorderDrained(stack)
  await broken.sweepNow()
  t.match(failures(), [{ pass: 'retention' }], 'the pass failed and said so')
  t.equal((await stack.db.query('SELECT 1 FROM recording_chunks WHERE recording_id = $1', [id])).rowCount, 1, 'the rows stay while their objects could not be deleted')
  const working = await recorder()
  await working.sweepNow()
  t.equal((await stack.db.query('SELECT 1 FROM recordings WHERE id = $1', [id])).rowCount, 0, 'the next sweep deletes the rows')
  t.equal(await objects.get(chunk.key), undefined, 'and the object')
})

t.test('ledger keys older than a day: an object no chunk row names is deleted, a named one kept, a key not shaped as a chunk only leaves the ledger; newer keys wait', async (t) => {
  const { stack, objects, recorder, failures, place } = await sweepStack(t)
  const one = await recorder()
  const dayAgo = Date.now() - DAY - HOUR
  // Stored, but its removal from the ledger was lost: the key came back with its old time.
  const named = chunkOf(stack.projectId, randomUUID(), 0)
  await sendChunk(place, named)
  await recorderDrained(stack)
  await stack.redis.zadd(stack.keys.recordingPuts, dayAgo, named.key)
  // Put, but its stream entry never came.
  const orphan = chunkOf(stack.projectId, randomUUID(), 0)
  await stack.redis.zadd(stack.keys.recordingPuts, dayAgo, orphan.key)
  await objects.put(orphan.key, orphan.gzipped)
  // Put an hour ago: its entry may still be on its way.
  const young = chunkOf(stack.projectId, randomUUID(), 0)
  await stack.redis.zadd(stack.keys.recordingPuts, Date.now() - HOUR, young.key)
  await objects.put(young.key, young.gzipped)
  // Not a chunk's key at all: never deleted by the recorder.
  await objects.put('sourcemaps/keep.map', Buffer.from('{}'))
  await stack.redis.zadd(stack.keys.recordingPuts, dayAgo, 'sourcemaps/keep.map')

  await one.sweepNow()
  t.same(failures(), [], 'the sweep did not fail')
  t.equal(await objects.get(orphan.key), undefined, 'the orphan’s object is deleted')
  t.ok(await objects.get(named.key), 'the object a chunk row names stays')
  t.ok(await objects.get(young.key), 'the young key’s object stays')
  t.ok(await objects.get('sourcemaps/keep.map'), 'the object under a key not shaped as a chunk’s stays')
  t.same(await stack.redis.zrange(stack.keys.recordingPuts, 0, -1), [young.key], 'only the young key is left on the ledger')
})
