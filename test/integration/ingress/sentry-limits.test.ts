import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib'
import t from 'tap'
import { scrape } from '../../helpers/metrics.js'
import { browserEvent, envelope, envelopePath, eventEnvelope, postSentry } from '../../helpers/browser/sentry.js'
import { queuedEvents, startTestStack } from '../../helpers/stack.js'

t.test('gzip, deflate (wrapped or raw) and br bodies are decompressed and taken', async (t) => {
  const stack = await startTestStack(t)
  const path = envelopePath(stack.projectId, stack.ingestKey)
  const encodings: Array<[string, (b: Buffer) => Buffer]> = [
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['deflate', deflateRawSync],
    ['br', brotliCompressSync],
  ]
  for (const [encoding, compress] of encodings) {
    const answer = await postSentry(stack.baseUrl, path, compress(Buffer.from(eventEnvelope(browserEvent()))), { 'Content-Encoding': encoding })
    t.equal(answer.status, 200, `${encoding} (${compress.name})`)
  }
  const store = await postSentry(stack.baseUrl, `/api/${stack.projectId}/store/?sentry_key=${stack.ingestKey}`, gzipSync(JSON.stringify(browserEvent())), { 'Content-Encoding': 'gzip' })
  t.equal(store.status, 200, 'a gzipped /store/ body')
  t.equal(await queuedEvents(stack), 5)
  const broken = await postSentry(stack.baseUrl, path, Buffer.from('not gzip at all'), { 'Content-Encoding': 'gzip' })
  t.same([broken.status, broken.body.code], [400, 'invalid_envelope'], 'bytes that do not decompress')
  const unknown = await postSentry(stack.baseUrl, path, eventEnvelope(browserEvent()), { 'Content-Encoding': 'zstd' })
  t.same([unknown.status, unknown.body.code], [415, 'unsupported_encoding'])
  t.match(unknown.body.message, /gzip, x-gzip, deflate, br/)
})

t.test('a decompression bomb is refused at the cap without being inflated whole', async (t) => {
  const stack = await startTestStack(t)
  const path = envelopePath(stack.projectId, stack.ingestKey)
  // 100 MB of zeros behind an envelope header: about 100 KB gzipped, well under the wire cap.
  const zeros = Buffer.alloc(100 * 1024 * 1024)
  const bombs: Array<[string, Buffer]> = [
    ['gzip', gzipSync(zeros, { level: 9 })],
    ['br', brotliCompressSync(zeros)],
    ['deflate', deflateSync(zeros, { level: 9 })],
  ]
  global.gc?.()
  const before = process.memoryUsage()
  for (const [encoding, bomb] of bombs) {
    t.ok(bomb.length < stack.config.limits.maxEventBytes, `the ${encoding} bomb (${bomb.length} bytes) passes the wire cap`)
    const started = performance.now()
    const answer = await postSentry(stack.baseUrl, path, bomb, { 'Content-Encoding': encoding })
    t.same([answer.status, answer.body.code], [413, 'payload_too_large'], encoding)
    t.ok(performance.now() - started < 2000, `${encoding}: refused in ${Math.round(performance.now() - started)} ms`)
  }
  const after = process.memoryUsage()
  // Inflating one bomb whole would add 100 MB of external memory; the cap allows about 1 MiB each.
  const grown = after.external + after.arrayBuffers - (before.external + before.arrayBuffers)
  t.ok(grown < 32 * 1024 * 1024, `external memory grew by ${Math.round(grown / 1024 / 1024)} MiB`)
  t.equal(await queuedEvents(stack), 0)
})

t.test('items other than events are taken, dropped and counted by type; an event beside them is kept', async (t) => {
  const stack = await startTestStack(t)
  const path = envelopePath(stack.projectId, stack.ingestKey)
  const dropped = async (type: string): Promise<number> => (await scrape(`${stack.baseUrl}/metrics`)).value('svc_ingress_sentry_items_dropped_total', { type })
  const before = { session: await dropped('session'), client_report: await dropped('client_report'), attachment: await dropped('attachment'), replay_recording: await dropped('replay_recording'), unknown: await dropped('unknown') }
  const session = envelope({ sent_at: new Date().toISOString(), sdk: { name: 'sentry.javascript.browser', version: '11.0.0' } }, [
    [{ type: 'session' }, { sid: 'a1b2c3', init: true, started: new Date().toISOString(), timestamp: new Date().toISOString(), status: 'ok', errors: 0, attrs: { release: 'shop@1.2.3', environment: 'production' } }],
  ])
  const first = await postSentry(stack.baseUrl, path, session)
  t.same([first.status, first.body], [200, {}])
  const sessionWithId = envelope({ event_id: '<script>' }, [[{ type: 'session' }, { sid: 'b', status: 'ok' }]])
  t.same((await postSentry(stack.baseUrl, path, sessionWithId)).body, {}, 'a header id that is not an event id is not echoed')
  const report = envelope({}, [[{ type: 'client_report' }, { timestamp: Date.now() / 1000, discarded_events: [{ reason: 'sample_rate', category: 'error', quantity: 1 }] }], [{ type: 'made_up_type' }, {}]])
  t.equal((await postSentry(stack.baseUrl, path, report)).status, 200)
  // A replay recording is binary with a length; an attachment's bytes may hold newlines.
  const event = browserEvent()
  const binary = Buffer.concat([
    Buffer.from(`${JSON.stringify({ event_id: event.event_id })}\n${JSON.stringify({ type: 'event' })}\n${JSON.stringify(event)}\n`),
    Buffer.from(`${JSON.stringify({ type: 'attachment', length: 7, filename: 'a.txt' })}\n`),
    Buffer.from('a\nb\nc\n\n'.slice(0, 7)),
    Buffer.from(`\n${JSON.stringify({ type: 'replay_recording', length: 4 })}\n`),
    Buffer.from([0, 10, 255, 10]),
  ])
  const mixed = await postSentry(stack.baseUrl, path, binary)
  t.same([mixed.status, mixed.body], [200, { id: event.event_id }])
  t.equal(await queuedEvents(stack), 1, 'only the event is queued')
  t.equal((await dropped('session')) - before.session, 2)
  t.equal((await dropped('client_report')) - before.client_report, 1)
  t.equal((await dropped('unknown')) - before.unknown, 1, 'a type Sentry does not document counts as unknown')
  t.equal((await dropped('attachment')) - before.attachment, 1)
  t.equal((await dropped('replay_recording')) - before.replay_recording, 1)
})

t.test('over the key\'s limit the answer is 429 with Retry-After and X-Sentry-Rate-Limits, readable by browser code', async (t) => {
  const stack = await startTestStack(t, { env: { SVC_EVENTS_PER_KEY_PER_MINUTE: '2', SVC_PROJECT_EVENTS_PER_MINUTE: '100' } })
  const path = envelopePath(stack.projectId, stack.ingestKey)
  const answers = []
  for (let i = 0; i < 3; i++) answers.push(await postSentry(stack.baseUrl, path, eventEnvelope(browserEvent())))
  t.same(answers.map((a) => a.status), [200, 200, 429])
  const refused = answers[2]!
  t.equal(refused.body.code, 'rate_limited')
  const seconds = refused.headers.get('retry-after')
  t.ok(Number(seconds) >= 1 && Number(seconds) <= 65, `Retry-After ${seconds}`)
  t.equal(refused.headers.get('x-sentry-rate-limits'), `${seconds}::key`)
  t.match(refused.headers.get('access-control-expose-headers'), /X-Sentry-Rate-Limits/)
  t.equal(await queuedEvents(stack), 2)
})

t.test('over the project\'s cap the answer names the project scope', async (t) => {
  const stack = await startTestStack(t)
  await stack.db.query('UPDATE projects SET events_per_minute = 1 WHERE id = $1', [stack.projectId])
  const path = envelopePath(stack.projectId, stack.ingestKey)
  t.equal((await postSentry(stack.baseUrl, path, eventEnvelope(browserEvent()))).status, 200)
  const refused = await postSentry(stack.baseUrl, path, eventEnvelope(browserEvent()))
  t.same([refused.status, refused.body.code], [429, 'project_quota_exceeded'])
  t.match(refused.headers.get('x-sentry-rate-limits'), /^\d+::project$/)
})
