// POST /api/v1/recordings on a real ingress with real Redis and PostgreSQL and the folder object
// store: an accepted chunk is an object, a ledger key and a stream entry with every field the
// contract lists; refused ones (size, shape, key, media type) leave nothing stored; browsers get
// CORS as for events; the metrics count both.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import t from 'tap'
import { chunkFromFields } from '../../../shared/domain/recording-chunk.js'
import { scrape } from '../../helpers/metrics.js'
import { everythingStored, ledger, postChunk, sampleChunk, streamEntries } from '../../helpers/browser/recording-wire.js'
import { startTestStack } from '../../helpers/stack.js'

const NOTHING = { entries: 0, ledger: 0, objects: [] }
/** A well-formed ingest key that matches no stored key. */
const UNKNOWN_KEY = `svc_pk_${'0'.repeat(12)}_${'A'.repeat(32)}`

t.test('a gzipped chunk is stored as sent, noted in the ledger, and put on the stream with every contract field', async (t) => {
  const stack = await startTestStack(t)
  const chunk = sampleChunk({ recording_id: '0B6F2C4A-1D2E-4F3A-9B8C-7D6E5F4A3B2C', seq: 7, user: { id: 'u-1', email: 'a@example.com', extra: 'not kept' }, release: 'shop@1.2.3', environment: 'production' })
  const sent = gzipSync(JSON.stringify(chunk))
  const before = Date.now()
  const answer = await postChunk(stack, sent, { headers: { 'Content-Encoding': 'gzip' } })
  const after = Date.now()
  t.equal(answer.status, 202)
  t.same(answer.body, { recording_id: '0b6f2c4a-1d2e-4f3a-9b8c-7d6e5f4a3b2c', seq: 7 }, 'the answer names the chunk, its recording lowercased')

  const [entry, ...more] = await streamEntries(stack)
  t.same(more, [], 'one stream entry')
  const key = `recordings/${stack.projectId}/0b6f2c4a-1d2e-4f3a-9b8c-7d6e5f4a3b2c/000007-${createHash('sha256').update(sent).digest('hex').slice(0, 16)}.json.gz`
  t.same(
    Object.keys(entry!).sort(),
    ['project', 'recording', 'seq', 'key', 'bytes', 'raw', 'first', 'last', 'received', 'session', 'user', 'release', 'environment', 'pages', 'clicks', 'errors'].sort(),
    'exactly the fields docs/recordings.md lists',
  )
  t.match(entry, {
    project: stack.projectId,
    recording: '0b6f2c4a-1d2e-4f3a-9b8c-7d6e5f4a3b2c',
    seq: '7',
    key,
    bytes: String(sent.length),
    raw: String(Buffer.byteLength(JSON.stringify(chunk))),
    first: String(1_764_200_000_000 - 40),
    last: String(1_764_200_000_000 + 3_000),
    session: 'session-1',
    release: 'shop@1.2.3',
    environment: 'production',
    clicks: '2',
    errors: '1',
  })
  t.same(JSON.parse(entry!.user!), { id: 'u-1', email: 'a@example.com' }, "the user's id, email and username, nothing else")
  t.same(JSON.parse(entry!.pages!), ['/cart?step=1', '/checkout'], 'pages: path and query, in order of first visit, each once')
  const received = Number(entry!.received)
  t.ok(received >= before && received <= after, 'received is when the ingress took it')
  t.same([...(await ledger(stack))], [[key, received]], 'the ledger holds the key, scored when it was received')
  const stored = readFileSync(join(stack.config.objectStore.dir, key))
  t.ok(stored.equals(sent), 'the object is the gzip received, byte for byte')
  t.same(JSON.parse(gunzipSync(stored).toString()), chunk, 'and gunzips to the body')
  t.match(chunkFromFields(entry!), { projectId: stack.projectId, seq: 7, key, clicks: 2, errors: 1, pages: ['/cart?step=1', '/checkout'] }, "the recorder's reader takes the entry as it is")
})

t.test('an identity body is gzipped before it is stored, under the hash of the stored bytes', async (t) => {
  const stack = await startTestStack(t)
  const chunk = sampleChunk({ seq: 0 })
  const answer = await postChunk(stack, chunk)
  t.equal(answer.status, 202)
  const [entry] = await streamEntries(stack)
  const stored = readFileSync(join(stack.config.objectStore.dir, entry!.key!))
  t.same(JSON.parse(gunzipSync(stored).toString()), chunk, 'the object gunzips to the body sent')
  t.ok(entry!.key!.endsWith(`/000000-${createHash('sha256').update(stored).digest('hex').slice(0, 16)}.json.gz`), 'its key names the hash of the gzipped bytes')
  t.equal(entry!.bytes, String(stored.length))
  t.equal(entry!.raw, String(Buffer.byteLength(JSON.stringify(chunk))))
  t.equal(entry!.user, '', 'no user: empty')
  t.equal(entry!.release, '')
  t.equal(entry!.environment, '')
})

t.test('a chunk sent again is accepted again: two stream entries, one object under one key', async (t) => {
  const stack = await startTestStack(t)
  const sent = gzipSync(JSON.stringify(sampleChunk({ seq: 3 })))
  const first = await postChunk(stack, sent, { headers: { 'Content-Encoding': 'gzip' } })
  const again = await postChunk(stack, sent, { headers: { 'Content-Encoding': 'gzip' } })
  t.same([first.status, again.status], [202, 202])
  const entries = await streamEntries(stack)
  t.equal(entries.length, 2, 'the recorder decides which one wins')
  t.equal(entries[0]!.key, entries[1]!.key, 'the same bytes, the same key')
  t.same((await everythingStored(stack)).objects, [entries[0]!.key], 'one object')
  t.equal((await ledger(stack)).size, 1, 'one ledger key')
})

t.test('a chunk over 5 MiB after decompression is refused with 413, declared, sent plain or gzipped, and nothing is stored', async (t) => {
  const stack = await startTestStack(t)
  const big = JSON.stringify(sampleChunk({ padding: 'x'.repeat(5 * 1024 * 1024) }))
  const plain = await postChunk(stack, big)
  t.equal(plain.status, 413)
  t.match(plain.body, { code: 'payload_too_large', message: /over 5 MiB \(counted after decompression\).*smaller chunks/ })
  const gzipped = await postChunk(stack, big, { gzip: true })
  t.equal(gzipped.status, 413, 'a small gzip that inflates past the cap')
  t.equal(gzipped.body.code, 'payload_too_large')
  const atCap = JSON.stringify(sampleChunk({ padding: '' }))
  const fits = await postChunk(stack, JSON.stringify(sampleChunk({ padding: 'x'.repeat(5 * 1024 * 1024 - Buffer.byteLength(atCap)) })), { gzip: true })
  t.equal(fits.status, 202, 'exactly 5 MiB fits')
  const stored = await everythingStored(stack)
  t.same([stored.entries, stored.ledger, stored.objects.length], [1, 1, 1], 'only the chunk that fits is stored')
})

t.test('malformed JSON and wrong shapes are refused with 400, a stable code and the field to fix, and nothing is stored', async (t) => {
  const stack = await startTestStack(t)
  const event = (patch: Record<string, unknown>): Record<string, unknown> => ({ type: 3, timestamp: 1_764_200_000_000, data: {}, ...patch })
  const cases: Array<[string, unknown, string, string | undefined]> = [
    ['truncated JSON', '{"recording_id": "', 'invalid_json', undefined],
    ['not an object', [sampleChunk()], 'invalid_recording', '(body)'],
    ['recording_id not a UUID', sampleChunk({ recording_id: 'tab-1' }), 'invalid_recording', 'recording_id'],
    ['seq negative', sampleChunk({ seq: -1 }), 'invalid_recording', 'seq'],
    ['seq fractional', sampleChunk({ seq: 1.5 }), 'invalid_recording', 'seq'],
    ['seq 1e6', sampleChunk({ seq: 1_000_000 }), 'invalid_recording', 'seq'],
    ['seq as text', sampleChunk({ seq: '3' }), 'invalid_recording', 'seq'],
    ['session_id missing', sampleChunk({ session_id: undefined }), 'invalid_recording', 'session_id'],
    ['session_id too long', sampleChunk({ session_id: 's'.repeat(129) }), 'invalid_recording', 'session_id'],
    ['events missing', sampleChunk({ events: undefined }), 'invalid_recording', 'events'],
    ['events empty', sampleChunk({ events: [] }), 'invalid_recording', 'events'],
    ['an event without timestamp', sampleChunk({ events: [event({}), event({ timestamp: undefined })] }), 'invalid_recording', 'events.1.timestamp'],
    ['a timestamp as text', sampleChunk({ events: [event({ timestamp: '2026-01-01' })] }), 'invalid_recording', 'events.0.timestamp'],
    ['a timestamp past any date', sampleChunk({ events: [event({ timestamp: 1e300 })] }), 'invalid_recording', 'events.0.timestamp'],
    ['a fractional type', sampleChunk({ events: [event({ type: 1.5 })] }), 'invalid_recording', 'events.0.type'],
    ['data not an object', sampleChunk({ events: [event({ data: 'x' })] }), 'invalid_recording', 'events.0.data'],
    ['an email too long', sampleChunk({ user: { email: `${'e'.repeat(300)}@example.com` } }), 'invalid_recording', 'user.email'],
    ['a release too long', sampleChunk({ release: 'r'.repeat(201) }), 'invalid_recording', 'release'],
    ['an environment with spaces', sampleChunk({ environment: 'prod env' }), 'invalid_recording', 'environment'],
  ]
  for (const [what, body, code, field] of cases) {
    const answer = await postChunk(stack, body, { gzip: true })
    t.equal(answer.status, 400, `${what}: 400`)
    t.equal(answer.body.code, code, `${what}: ${code}`)
    t.equal(answer.body.field, field, `${what}: field ${field}`)
    t.match(answer.body.message, /send the chunk again|Send one JSON object/i, `${what}: says what to do`)
  }
  const notGzip = await postChunk(stack, JSON.stringify(sampleChunk()), { headers: { 'Content-Encoding': 'gzip' } })
  t.match([notGzip.status, notGzip.body.code, notGzip.body.message], [400, 'invalid_json', /marked gzip but does not decompress/], 'a body marked gzip that is not')
  t.same(await everythingStored(stack), NOTHING)
})

t.test('a wrong key, another kind of key, or another media type is refused before anything is stored', async (t) => {
  const stack = await startTestStack(t)
  const chunk = sampleChunk()
  const unknown = await postChunk(stack, chunk, { gzip: true, headers: { 'X-API-Key': UNKNOWN_KEY } })
  t.match([unknown.status, unknown.body.code], [401, 'key_unknown'])
  const missing = await postChunk(stack, chunk, { headers: { 'X-API-Key': '' } })
  t.match([missing.status, missing.body.code], [401, 'key_missing'])
  const sourcemapKey = await postChunk(stack, chunk, { headers: { 'X-API-Key': await stack.mint('sourcemap') } })
  t.match([sourcemapKey.status, sourcemapKey.body.code], [403, 'insufficient_scope'])
  t.match(sourcemapKey.body.message, /cannot send recordings: send the chunks with the ingest key/, 'the refusal speaks of chunks')
  t.notMatch(sourcemapKey.body.message, /events/, 'not of events')
  const apiKey = await postChunk(stack, chunk, { headers: { 'X-API-Key': await stack.mint('api') } })
  t.match([apiKey.status, apiKey.body.code, apiKey.body.message], [403, 'insufficient_scope', /send the chunks with the ingest key/])
  const text = await postChunk(stack, chunk, { headers: { 'Content-Type': 'text/plain' } })
  t.match([text.status, text.body.code], [415, 'unsupported_media_type'])
  const brotli = await postChunk(stack, chunk, { headers: { 'Content-Encoding': 'br' } })
  t.match([brotli.status, brotli.body.code], [415, 'unsupported_encoding'])
  t.same(await everythingStored(stack), NOTHING)
})

t.test('browsers: the preflight allows the SDK\'s headers from any origin, and answers grant the origin without credentials', async (t) => {
  const stack = await startTestStack(t)
  const preflight = await fetch(`${stack.baseUrl}/api/v1/recordings`, {
    method: 'OPTIONS',
    headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-encoding,content-type,x-api-key' },
  })
  t.equal(preflight.status, 204)
  t.equal(preflight.headers.get('access-control-allow-origin'), '*')
  t.match(preflight.headers.get('access-control-allow-methods'), /\bPOST\b/)
  for (const header of ['content-type', 'content-encoding', 'x-api-key']) t.match(preflight.headers.get('access-control-allow-headers')?.toLowerCase(), new RegExp(`\\b${header}\\b`), `allows ${header}`)
  t.equal(preflight.headers.get('access-control-allow-credentials'), null, 'never credentials')
  const accepted = await postChunk(stack, sampleChunk(), { gzip: true, headers: { Origin: 'https://app.example' } })
  t.equal(accepted.status, 202)
  t.equal(accepted.headers.get('access-control-allow-origin'), '*', 'the 202 grants the origin')
  const refused = await postChunk(stack, sampleChunk(), { headers: { Origin: 'https://app.example', 'X-API-Key': UNKNOWN_KEY } })
  t.equal(refused.headers.get('access-control-allow-origin'), '*', 'so does a refusal, so the SDK can read its code')
})

t.test('the ingress counts chunks accepted with their bytes, and refused by code, on /metrics', async (t) => {
  const stack = await startTestStack(t)
  const before = await scrape(`${stack.baseUrl}/metrics`)
  const chunk = JSON.stringify(sampleChunk())
  const answers = await Promise.all([postChunk(stack, chunk, { gzip: true }), postChunk(stack, chunk), postChunk(stack, '{', { gzip: true }), postChunk(stack, chunk, { headers: { 'X-API-Key': UNKNOWN_KEY } })])
  t.same(answers.map((a) => a.status), [202, 202, 400, 401])
  const after = await scrape(`${stack.baseUrl}/metrics`)
  const moved = (name: string, labels: Record<string, string> = {}): number => after.value(name, labels) - before.value(name, labels)
  t.equal(moved('svc_ingress_recording_chunks_accepted_total'), 2)
  t.equal(moved('svc_ingress_recording_chunks_refused_total', { code: 'invalid_json' }), 1)
  t.equal(moved('svc_ingress_recording_chunks_refused_total', { code: 'key_unknown' }), 1)
  t.equal(moved('svc_ingress_recording_bytes_accepted_total', { form: 'raw' }), 2 * Buffer.byteLength(chunk))
  const storedBytes = (await streamEntries(stack)).reduce((sum, entry) => sum + Number(entry.bytes), 0)
  t.equal(moved('svc_ingress_recording_bytes_accepted_total', { form: 'stored' }), storedBytes, 'stored bytes: the objects written')
  t.equal(moved('svc_ingress_events_refused_total'), 0, "the events route's counters do not move")
})
