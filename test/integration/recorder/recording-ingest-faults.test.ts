// Recording chunks when something is wrong: the object store cannot write, Redis refuses the stream
// entry, a project is over its per-minute limits, a decompression bomb. Each is refused with its
// code and retry_after where a retry helps, and leaves nothing stored: no stream entry, no ledger
// key, no object, no count spent.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createGzip } from 'node:zlib'
import t from 'tap'
import { everythingStored, ledger, postChunk, sampleChunk, storedObjects, streamEntries } from '../../helpers/browser/recording-wire.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'

const NOTHING = { entries: 0, ledger: 0, objects: [] }
const MIB = 1024 * 1024

/** The counts the rate limiter holds for the project now: chunks and bytes. */
async function counted(stack: TestStack): Promise<[number, number]> {
  const window = Math.floor(Date.now() / 60_000)
  const [chunks, bytes] = await stack.redis.mget(stack.keys.recordingRateLimit(stack.projectId, 'n', window), stack.keys.recordingRateLimit(stack.projectId, 'b', window))
  return [Number(chunks ?? 0), Number(bytes ?? 0)]
}

/** Waits, when the current minute has under 10 s left, for the next: a window must not turn mid-test. */
async function freshWindow(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000)
  if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 50))
}

/** gzip of size bytes of zeros, made a MiB at a time, so the test never holds what it inflates to. */
function zerosGzipped(size: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const gzip = createGzip({ level: 9 })
    const out: Buffer[] = []
    gzip.on('data', (chunk: Buffer) => out.push(chunk))
    gzip.on('end', () => resolve(Buffer.concat(out)))
    gzip.on('error', reject)
    const mib = Buffer.alloc(MIB)
    let written = 0
    const more = (): void => {
      while (written < size) {
        written += MIB
        if (!gzip.write(mib)) return void gzip.once('drain', more)
      }
      gzip.end()
    }
    more()
  })
}

t.test('while the object folder cannot be written, a chunk is refused with 503 objectstore_unavailable and nothing is stored; after, it is accepted', async (t) => {
  const stack = await startTestStack(t)
  const dir = stack.config.objectStore.dir
  await freshWindow()
  // A file where the folder was: every write under it fails, as on a full or unmounted disk.
  rmSync(dir, { recursive: true, force: true })
  writeFileSync(dir, 'not a folder')
  const chunk = sampleChunk()
  const refused = await postChunk(stack, chunk, { gzip: true })
  rmSync(dir, { force: true })
  mkdirSync(dir)
  t.equal(refused.status, 503)
  t.match(refused.body, { code: 'objectstore_unavailable', retry_after: 10, message: /nothing was stored\. Send the chunk again in retry_after seconds/ })
  t.equal(refused.headers.get('retry-after'), '10')
  t.same(await everythingStored(stack), NOTHING, 'no stream entry, no ledger key, no object')
  t.same(await counted(stack), [0, 0], 'and its count given back')
  const again = await postChunk(stack, chunk, { gzip: true })
  t.equal(again.status, 202, 'sent again once the folder is back, it is accepted')
  t.equal((await streamEntries(stack)).length, 1)
})

t.test('when Redis refuses the stream entry, the chunk is refused with 503 and its object deleted again', async (t) => {
  const stack = await startTestStack(t)
  await freshWindow()
  // A stream key holding a string: XADD fails (WRONGTYPE) while every other command works.
  await stack.redis.set(stack.keys.recordings, 'not a stream')
  const chunk = sampleChunk()
  const refused = await postChunk(stack, chunk, { gzip: true })
  t.equal(refused.status, 503)
  t.match(refused.body, { code: 'unavailable', retry_after: 5, message: /nothing was stored/ })
  t.same(storedObjects(stack), [], 'the object put before the entry failed is deleted')
  t.same([...(await ledger(stack))], [], 'its ledger key removed')
  t.same(await counted(stack), [0, 0], 'its count given back')
  await stack.redis.del(stack.keys.recordings)
  const again = await postChunk(stack, chunk, { gzip: true })
  t.equal(again.status, 202, 'sent again, it is accepted')
  t.equal(storedObjects(stack).length, 1)
})

t.test('when the stream refuses a chunk sent again with the same bytes, the object of the first, accepted one stays', async (t) => {
  const stack = await startTestStack(t)
  const sent = JSON.stringify(sampleChunk({ seq: 4 }))
  t.equal((await postChunk(stack, sent, { gzip: true })).status, 202)
  const [first] = await streamEntries(stack)
  // Not recorded yet: its key is still in the ledger.
  await stack.redis.rename(stack.keys.recordings, `${stack.keys.recordings}:aside`)
  await stack.redis.set(stack.keys.recordings, 'not a stream')
  t.equal((await postChunk(stack, sent, { gzip: true })).status, 503)
  t.same(storedObjects(stack), [first!.key], 'the object the first entry names is kept')
  t.ok((await ledger(stack)).has(first!.key!), 'and so is its ledger key')

  // Recorded already: the ledger no longer has the key, a recording_chunks row names it.
  await stack.redis.zrem(stack.keys.recordingPuts, first!.key!)
  const at = new Date(Number(first!.first))
  await stack.db.query('INSERT INTO recordings (project_id, id, session_id, started_at, last_at, received_at) VALUES ($1, $2, $3, $4, $4, now())', [stack.projectId, first!.recording, 'session-1', at])
  await stack.db.query('INSERT INTO recording_chunks (project_id, recording_id, seq, object_key, bytes, raw_bytes, first_at, last_at, received_at) VALUES ($1, $2, 4, $3, 1, 1, $4, $4, now())', [stack.projectId, first!.recording, first!.key, at])
  t.equal((await postChunk(stack, sent, { gzip: true })).status, 503)
  t.same(storedObjects(stack), [first!.key], 'the object a stored chunk names is kept')
  await stack.redis.del(stack.keys.recordings, `${stack.keys.recordings}:aside`)
})

t.test('a project over its chunks per minute is refused with 429 and retry_after until the window ends', async (t) => {
  const stack = await startTestStack(t, { env: { SVC_RECORDING_CHUNKS_PER_MINUTE: '2' } })
  await freshWindow()
  const answers = []
  for (let seq = 0; seq < 3; seq++) answers.push(await postChunk(stack, sampleChunk({ seq }), { gzip: true }))
  t.same(answers.map((a) => a.status), [202, 202, 429])
  const refused = answers[2]!
  const untilMinute = Math.ceil((60_000 - (Date.now() % 60_000)) / 1000)
  t.match(refused.body, { code: 'rate_limited', message: /more recording chunks.*per-minute limit.*send the chunk again/ })
  t.ok(Math.abs(Number(refused.body.retry_after) - untilMinute) <= 1, `retry_after ${String(refused.body.retry_after)} s is the rest of the minute (${untilMinute} s)`)
  t.equal(refused.headers.get('retry-after'), String(refused.body.retry_after))
  t.equal(refused.headers.get('access-control-expose-headers'), 'Retry-After', 'which a browser may read')
  const stored = await everythingStored(stack)
  t.same([stored.entries, stored.ledger, stored.objects.length], [2, 2, 2], 'the refused chunk left nothing')
  const raw = (await streamEntries(stack)).reduce((sum, entry) => sum + Number(entry.raw), 0)
  t.same(await counted(stack), [2, raw], 'two chunks counted, with their decompressed bytes: not the refused one')
})

t.test('a project over its decompressed bytes per minute is refused with 429', async (t) => {
  const stack = await startTestStack(t, { env: { SVC_RECORDING_MB_PER_MINUTE: '5' } })
  await freshWindow()
  // Two MiB each, mostly one repeated letter: small on the wire, large after decompression.
  const chunk = (seq: number): Record<string, unknown> => sampleChunk({ seq, padding: 'y'.repeat(2 * MIB) })
  const answers = []
  for (let seq = 0; seq < 3; seq++) answers.push(await postChunk(stack, chunk(seq), { gzip: true }))
  t.same(answers.map((a) => a.status), [202, 202, 429], 'a third 2 MiB chunk would pass 5 MiB')
  t.equal(answers[2]!.body.code, 'rate_limited')
  const [chunks, bytes] = await counted(stack)
  t.equal(chunks, 2)
  t.equal(bytes, (await streamEntries(stack)).reduce((sum, entry) => sum + Number(entry.raw), 0), 'the bytes counted are the accepted chunks\' decompressed bytes')
})

t.test('a decompression bomb (200 MiB of zeros in about 200 KB) is refused with 413 without being inflated', async (t) => {
  const stack = await startTestStack(t)
  const bomb = await zerosGzipped(200 * MIB)
  t.ok(bomb.length < 400 * 1024, `the bomb is ${bomb.length} bytes on the wire`)
  // The ingress runs in this process: its resident memory, sampled while it answers, would grow by
  // the 200 MiB it inflates to, had it inflated it.
  global.gc?.()
  const baseline = process.memoryUsage().rss
  let peak = baseline
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 1)
  const answer = await postChunk(stack, bomb, { headers: { 'Content-Encoding': 'gzip' } })
  clearInterval(sampler)
  peak = Math.max(peak, process.memoryUsage().rss)
  t.equal(answer.status, 413)
  t.equal(answer.body.code, 'payload_too_large')
  t.ok(peak - baseline < 64 * MIB, `resident memory grew by ${((peak - baseline) / MIB).toFixed(1)} MiB, far below 200`)
  t.same(await everythingStored(stack), NOTHING)
})
