import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import { createRecorder } from '../../../services/recorder/index.js'
import { scrapeMetrics } from '../../../shared/metrics.js'
import { createObjectStore } from '../../../shared/object-store.js'
import { chunkFields } from '../../../shared/domain/recording-chunk.js'
import { userKey } from '../../../shared/domain/user-key.js'
import { parseMetrics } from '../../helpers/metrics.js'
import { capturedLog, chunkOf, recorderDrained, recorderGroup, sendChunk } from '../../helpers/browser/recording-chunks.js'
import { startTestStack } from '../../helpers/stack.js'

interface RecordingRow {
  started_at: Date
  last_at: Date
  received_at: Date
  closed_at: Date | null
  pages: string[]
  clicks: number
  errors: number
  chunks: number
  max_seq: number
  bytes: string
  session_id: string
  user_key: string | null
  user_label: string | null
  release: string | null
  environment: string | null
}

/** A stack, the fs object store and a recorder (not started unless start). */
async function recorderStack(t: Test, options: { start?: boolean } = {}) {
  const stack = await startTestStack(t, { ingress: false })
  const { log, lines } = capturedLog()
  const objects = await createObjectStore(stack.config.objectStore)
  await recorderGroup(stack)
  const recorder = createRecorder({ db: stack.db, objects, redis: stack.redis, keys: stack.keys, log, timing: stack.config.stream, settings: stack.config.recordings })
  t.teardown(() => recorder.stop())
  if (options.start !== false) await recorder.start()
  const place = { objects, redis: stack.redis, keys: stack.keys }
  const recording = async (id: string): Promise<RecordingRow | undefined> =>
    (
      await stack.db.query<RecordingRow>(
        `SELECT r.*, e.name AS environment FROM recordings r LEFT JOIN environments e ON e.id = r.environment_id WHERE r.project_id = $1 AND r.id = $2`,
        [stack.projectId, id],
      )
    ).rows[0]
  const chunkKeys = async (id: string): Promise<Array<{ seq: number; object_key: string }>> =>
    (await stack.db.query<{ seq: number; object_key: string }>('SELECT seq, object_key FROM recording_chunks WHERE recording_id = $1 ORDER BY seq', [id])).rows
  return { stack, objects, recorder, lines, place, recording, chunkKeys }
}

t.test("stores a recording's chunks once each, with the recording's times, pages in order of first visit, clicks, errors, user and environment, and takes their keys off the ledger", async (t) => {
  const { stack, objects, place, recording, chunkKeys, lines } = await recorderStack(t)
  const id = randomUUID()
  const base = Date.now() - 10 * 60_000
  const user = { id: 'user-42', email: 'ada@example.com', username: 'ada' }
  const chunks = [
    chunkOf(stack.projectId, id, 0, { firstAt: base, lastAt: base + 25_000, receivedAt: base + 30_000, pages: ['/shop', '/cart?step=1'], clicks: 2, user, environment: 'production', release: '1.2.3' }),
    chunkOf(stack.projectId, id, 1, { firstAt: base + 30_000, lastAt: base + 55_000, receivedAt: base + 60_000, pages: ['/cart?step=1', '/checkout'], clicks: 3, errors: 1, user, environment: 'production', release: '1.2.3' }),
    chunkOf(stack.projectId, id, 2, { firstAt: base + 60_000, lastAt: base + 70_000, receivedAt: base + 90_000, pages: ['/shop', '/thanks'], user, environment: 'production', release: '1.2.3' }),
  ]
  for (const chunk of chunks) await sendChunk(place, chunk)
  await recorderDrained(stack)

  const row = await recording(id)
  t.ok(row, 'the recording has its row')
  t.equal(row!.started_at.getTime(), base, 'started at the first chunk’s first event')
  t.equal(row!.last_at.getTime(), base + 70_000, 'last activity at the last chunk’s last event')
  t.equal(row!.received_at.getTime(), base + 90_000, 'received when the last chunk arrived')
  t.equal(row!.closed_at, null, 'open')
  t.same(row!.pages, ['/shop', '/cart?step=1', '/checkout', '/thanks'], 'each page once, in order of first visit')
  t.same([row!.clicks, row!.errors, row!.chunks, row!.max_seq], [5, 1, 3, 2], 'clicks, errors, chunks and the highest seq')
  t.equal(Number(row!.bytes), chunks.reduce((n, c) => n + c.bytes, 0), 'the stored bytes added up')
  t.equal(row!.user_key, userKey(stack.projectId, user), "the user key is the grouper's hash of the user's id")
  t.equal(row!.user_label, 'user-42', 'shown by the id')
  t.same([row!.session_id, row!.release, row!.environment], ['session-1', '1.2.3', 'production'], 'session, release and the environment row')
  t.same((await chunkKeys(id)).map((c) => c.object_key), chunks.map((c) => c.key), 'a row per chunk naming its object')
  t.equal(await stack.redis.zcard(stack.keys.recordingPuts), 0, 'the ledger holds none of their keys')
  t.ok(await objects.get(chunks[1]!.key), 'the objects stay')
  t.same(lines.filter((line) => line.level === 'error' || line.level === 'warn'), [], 'nothing was logged as a problem')
})

t.test('a redelivered entry and a chunk sent again under another hash are stored once: the first row wins, the second object is deleted, counts are not doubled', async (t) => {
  const { stack, objects, place, recording, chunkKeys } = await recorderStack(t)
  const id = randomUUID()
  const first = chunkOf(stack.projectId, id, 0, { pages: ['/a'], clicks: 4, errors: 1 })
  const second = chunkOf(stack.projectId, id, 1, { pages: ['/b'], clicks: 1 })
  await sendChunk(place, first)
  await sendChunk(place, second)
  await recorderDrained(stack)
  // The same entry once more, as the stream delivers it again after a lost acknowledgement.
  await sendChunk(place, first)
  // The SDK sent chunk 0 again (its answer was lost) and its gzip came out different: another key.
  const resent = chunkOf(stack.projectId, id, 0, { body: JSON.stringify({ again: true }), pages: ['/a', '/z'], clicks: 9 })
  t.not(resent.key, first.key, 'the resend has a key of its own')
  await sendChunk(place, resent)
  await recorderDrained(stack)

  const row = await recording(id)
  t.same([row!.chunks, row!.clicks, row!.errors, row!.max_seq], [2, 5, 1, 1], 'counted once per chunk')
  t.same(row!.pages, ['/a', '/b'], 'the resend’s pages were not added')
  t.same((await chunkKeys(id)).map((c) => c.object_key), [first.key, second.key], 'the first row of seq 0 stands')
  t.ok(await objects.get(first.key), 'its object stays')
  t.equal(await objects.get(resent.key), undefined, 'the resend’s object is deleted')
  t.equal(await stack.redis.zcard(stack.keys.recordingPuts), 0, 'and no key is left on the ledger')
})

t.test('chunks arriving out of order, with one missing: the recording counts the chunks it has, keeps the highest seq, and orders its pages by time', async (t) => {
  const { stack, place, recording } = await recorderStack(t)
  const id = randomUUID()
  const base = Date.now() - 60 * 60_000
  await sendChunk(place, chunkOf(stack.projectId, id, 3, { firstAt: base + 90_000, lastAt: base + 100_000, pages: ['/late'] }))
  await recorderDrained(stack)
  t.same((await recording(id))!.pages, ['/late'])
  // Chunks 0 and 1 come after chunk 3; chunk 2 never comes.
  await sendChunk(place, chunkOf(stack.projectId, id, 1, { firstAt: base + 30_000, lastAt: base + 40_000, pages: ['/second'] }))
  await sendChunk(place, chunkOf(stack.projectId, id, 0, { firstAt: base, lastAt: base + 10_000, pages: ['/first', '/second'] }))
  await recorderDrained(stack)
  const row = (await recording(id))!
  t.same([row.chunks, row.max_seq], [3, 3], 'three chunks, the highest seq 3: chunks < max_seq + 1 shows one missing')
  t.equal(row.started_at.getTime(), base, 'started at chunk 0')
  t.equal(row.last_at.getTime(), base + 100_000, 'last activity stays at chunk 3')
  t.same(row.pages, ['/first', '/second', '/late'], 'the earlier chunks’ pages come first')
})

t.test('two chunks of one recording in one batch both count, and a second recording in the batch gets its own row', async (t) => {
  const { stack, place, recorder, recording } = await recorderStack(t, { start: false })
  const [a, b] = [randomUUID(), randomUUID()]
  await sendChunk(place, chunkOf(stack.projectId, a, 0, { pages: ['/x'], clicks: 1 }))
  await sendChunk(place, chunkOf(stack.projectId, a, 1, { pages: ['/y'], clicks: 2, user: { email: 'grace@example.com', username: 'grace' } }))
  await sendChunk(place, chunkOf(stack.projectId, b, 0, { pages: ['/z'], sessionId: 'session-2' }))
  // All three wait on the stream before the recorder starts: its first read takes them as one batch.
  const before = parseMetrics(await scrapeMetrics())
  await recorder.start()
  await recorderDrained(stack)
  const after = parseMetrics(await scrapeMetrics())
  const moved = (name: string): number => after.value(name, { group: 'recorder' }) - before.value(name, { group: 'recorder' })
  t.same([moved('svc_stream_batch_entries_count'), moved('svc_stream_batch_entries_sum')], [1, 3], 'one batch of three entries')
  const rowA = (await recording(a))!
  t.same([rowA.chunks, rowA.clicks, rowA.max_seq, rowA.pages], [2, 3, 1, ['/x', '/y']], 'both chunks of a counted')
  t.equal(rowA.user_key, userKey(stack.projectId, { email: 'grace@example.com' }), 'the user from the chunk that named one, keyed by email when there is no id')
  t.equal(rowA.user_label, 'grace', 'and shown by the username before the email')
  const rowB = (await recording(b))!
  t.same([rowB.chunks, rowB.session_id, rowB.user_key], [1, 'session-2', null], 'b has its own row, without a user')
})

t.test('malformed entries are logged and skipped without a retry, their objects untouched; a chunk of a project that no longer exists is skipped and its object deleted', async (t) => {
  const { stack, objects, place, recording, lines } = await recorderStack(t)
  const id = randomUUID()
  const good = chunkOf(stack.projectId, id, 0)
  // A key outside the chunk's own folder: the recorder must never delete by it.
  await objects.put('sourcemaps/precious.map', Buffer.from('{}'))
  // A chunk put in the store and noted in the ledger whose entry came out malformed.
  const foreign = chunkOf(stack.projectId, id, 1)
  await stack.redis.zadd(stack.keys.recordingPuts, Date.now(), foreign.key)
  await objects.put(foreign.key, foreign.gzipped)
  await stack.redis.xadd(stack.keys.recordings, '*', 'project', stack.projectId, 'recording', id, 'seq', '1', 'key', 'sourcemaps/precious.map', 'bytes', '1', 'raw', '1', 'first', '1', 'last', '1', 'received', '1', 'session', 's', 'user', '', 'release', '', 'environment', '', 'pages', '[]', 'clicks', '0', 'errors', '0')
  const badSeq = chunkFields(foreign)
  badSeq[badSeq.indexOf('seq') + 1] = '-1'
  await stack.redis.xadd(stack.keys.recordings, '*', ...badSeq)
  await stack.redis.xadd(stack.keys.recordings, '*', 'project', 'not-a-project')
  const gone = chunkOf(randomUUID(), randomUUID(), 0)
  await sendChunk(place, gone)
  await sendChunk(place, good)
  await recorderDrained(stack)

  const row = (await recording(id))!
  t.equal(row.chunks, 1, 'the good chunk in the same batch is stored')
  const malformed = lines.filter((line) => line.msg === 'recordings stream entry is malformed; skipped')
  t.equal(malformed.length, 3, 'each malformed entry logged once (no retry)')
  t.match(malformed.map((line) => line.problem), ["key is not an object key in the chunk's recording folder", /^seq is not a whole number/, 'project is not a UUID'])
  t.ok(await objects.get('sourcemaps/precious.map'), 'an object the entry named outside its folder is untouched')
  t.equal((await stack.db.query('SELECT 1 FROM recordings WHERE project_id = $1', [gone.projectId])).rowCount, 0, 'nothing is stored for a project that is gone')
  t.equal(await objects.get(gone.key), undefined, 'its object is deleted')
  t.match(lines.find((line) => /projects that no longer exist/.test(String(line.msg))), { projects: [gone.projectId], chunks: 1 })
  t.same(await stack.redis.zrange(stack.keys.recordingPuts, 0, -1), [foreign.key], 'only the key no entry recorded stays on the ledger, for the orphan sweep')
  t.equal(await stack.redis.xlen(`${stack.keys.recordings}:dead:recorder`), 0, 'nothing was dead-lettered')
})
