import { gzipSync } from 'node:zlib'
import t from 'tap'
import { postEvent, queuedEvents, sampleEvent, startTestStack, waitFor } from '../../helpers/stack.js'

const JSON_TYPE = { 'Content-Type': 'application/json' }

t.test('every bad input gets its status and code, and nothing is stored', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const sourcemapKey = await stack.mint('sourcemap')
  const apiKey = await stack.mint('api')
  const headers = { ...JSON_TYPE, 'X-API-Key': stack.ingestKey }
  const truncated = stack.ingestKey.slice(0, -3)
  const edited = stack.ingestKey.slice(0, -1) + (stack.ingestKey.endsWith('A') ? 'B' : 'A')
  const bomb = gzipSync(Buffer.from(JSON.stringify(sampleEvent({ padding: 'x'.repeat(2 * 1024 * 1024) }))))
  const { error: _dropped, ...withoutError } = sampleEvent()

  const cases: Array<{ name: string; body: unknown; headers: Record<string, string>; status: number; code: string; field?: string }> = [
    { name: 'malformed JSON', body: '{"timestamp": ', headers, status: 400, code: 'invalid_json' },
    { name: 'a JSON array instead of an object', body: '[]', headers, status: 400, code: 'invalid_event', field: '(body)' },
    { name: 'missing error', body: withoutError, headers, status: 400, code: 'invalid_event', field: 'error' },
    { name: 'missing context.url', body: sampleEvent({ context: { user_agent: 'x' } }), headers, status: 400, code: 'invalid_event', field: 'context.url' },
    { name: 'mistyped error.type', body: sampleEvent({ error: { type: 42, message: 'm', stack: '' } }), headers, status: 400, code: 'invalid_event', field: 'error.type' },
    { name: 'timestamp not ISO 8601', body: sampleEvent({ timestamp: 'yesterday' }), headers, status: 400, code: 'invalid_event', field: 'timestamp' },
    { name: 'no key', body: sampleEvent(), headers: JSON_TYPE, status: 401, code: 'key_missing' },
    { name: 'a truncated key', body: sampleEvent(), headers: { ...JSON_TYPE, 'X-API-Key': truncated }, status: 401, code: 'key_malformed' },
    { name: 'an edited key', body: sampleEvent(), headers: { ...JSON_TYPE, 'X-API-Key': edited }, status: 401, code: 'key_unknown' },
    { name: 'a source-map key', body: sampleEvent(), headers: { ...JSON_TYPE, 'X-API-Key': sourcemapKey }, status: 403, code: 'insufficient_scope' },
    { name: 'an api key', body: sampleEvent(), headers: { ...JSON_TYPE, 'X-API-Key': apiKey }, status: 403, code: 'insufficient_scope' },
    { name: 'a body over 1 MiB', body: sampleEvent({ padding: 'x'.repeat(1024 * 1024) }), headers, status: 413, code: 'payload_too_large' },
    { name: 'a gzip body over 1 MiB once decompressed', body: bomb, headers: { ...headers, 'Content-Encoding': 'gzip' }, status: 413, code: 'payload_too_large' },
    { name: 'a body marked gzip that is not', body: 'not gzip', headers: { ...headers, 'Content-Encoding': 'gzip' }, status: 400, code: 'invalid_json' },
    { name: 'text/plain', body: sampleEvent(), headers: { 'Content-Type': 'text/plain', 'X-API-Key': stack.ingestKey }, status: 415, code: 'unsupported_media_type' },
    { name: 'an unknown content encoding', body: sampleEvent(), headers: { ...headers, 'Content-Encoding': 'br' }, status: 415, code: 'unsupported_encoding' },
  ]
  t.ok(bomb.length < 1024 * 1024, 'the bomb itself is small on the wire')

  for (const c of cases) {
    const answer = await postEvent(stack.baseUrl, c.body, c.headers)
    t.equal(answer.status, c.status, `${c.name}: status ${c.status}`)
    t.equal(answer.body.code, c.code, `${c.name}: code ${c.code}`)
    t.type(answer.body.message, 'string', `${c.name}: says what to do`)
    if (c.field !== undefined) t.equal(answer.body.field, c.field, `${c.name}: names the field`)
  }

  const good = await postEvent(stack.baseUrl, sampleEvent({ something_new: { nested: true } }), headers)
  t.equal(good.status, 202, 'an event with unknown extra fields is accepted')
  t.match(good.body.id, /^[0-9a-f-]{36}$/, 'and answered with its id')

  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === 1)
  const { rows } = await stack.db.query<{ id: string }>('SELECT id FROM events')
  t.same(rows.map((r) => r.id), [good.body.id], 'only the accepted event was stored')
  t.equal(await queuedEvents(stack), 1, 'only one event ever reached the stream')
})

t.test('a gzipped event within the limit is accepted', async (t) => {
  const stack = await startTestStack(t)
  const answer = await postEvent(stack.baseUrl, gzipSync(Buffer.from(JSON.stringify(sampleEvent()))), {
    ...JSON_TYPE,
    'Content-Encoding': 'gzip',
    'X-API-Key': stack.ingestKey,
  })
  t.equal(answer.status, 202)
  t.equal(await queuedEvents(stack), 1, 'it is on the stream')
})

t.test('a key over its per-minute limit gets 429 with retry_after, and the extra event is not queued', async (t) => {
  const stack = await startTestStack(t, { env: { SVC_EVENTS_PER_KEY_PER_MINUTE: '3' } })
  const headers = { ...JSON_TYPE, 'X-API-Key': stack.ingestKey }
  const statuses: number[] = []
  let limited: Awaited<ReturnType<typeof postEvent>> | undefined
  for (let i = 0; i < 5; i++) {
    const answer = await postEvent(stack.baseUrl, sampleEvent(), headers)
    statuses.push(answer.status)
    if (answer.status === 429) limited = answer
  }
  t.same(statuses, [202, 202, 202, 429, 429])
  t.equal(limited?.body.code, 'rate_limited')
  t.ok(Number(limited?.body.retry_after) >= 1 && Number(limited?.body.retry_after) <= 65, 'retry_after is within the window')
  t.equal(limited?.headers.get('retry-after'), String(limited?.body.retry_after), 'Retry-After header matches')
  t.equal(await queuedEvents(stack), 3, 'only the three accepted events are on the stream')
})

t.test('a backlog past the threshold answers 429 backlog_full until the grouper catches up', async (t) => {
  const stack = await startTestStack(t, { env: { SVC_EVENTS_BACKLOG_LIMIT: '5' } })
  const headers = { ...JSON_TYPE, 'X-API-Key': stack.ingestKey }
  for (let i = 0; i < 6; i++) t.equal((await postEvent(stack.baseUrl, sampleEvent(), headers)).status, 202, `event ${i} accepted`)
  const full = await waitFor(async () => {
    const answer = await postEvent(stack.baseUrl, sampleEvent(), headers)
    return answer.status === 429 ? answer : undefined
  }, 5000, 100)
  t.equal(full.body.code, 'backlog_full')
  t.ok(Number(full.body.retry_after) > 0, 'tells when to retry')
  const queued = await queuedEvents(stack)
  await stack.startWorker()
  await waitFor(async () => (await postEvent(stack.baseUrl, sampleEvent(), headers)).status === 202, 10_000, 100)
  const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events')
  t.ok(rows[0]!.n >= queued, 'everything queued before the backlog cleared was stored')
})

t.test('ping answers 204 for an ingest key and 401/403 otherwise; CORS preflight allows the SDK headers', async (t) => {
  const stack = await startTestStack(t)
  const ping = (key?: string) => fetch(`${stack.baseUrl}/api/v1/ingest/ping`, { method: 'POST', headers: key ? { 'X-API-Key': key } : {} })
  t.equal((await ping(stack.ingestKey)).status, 204)
  t.equal((await ping()).status, 401)
  t.equal((await ping(await stack.mint('sourcemap'))).status, 403)
  const preflight = await fetch(`${stack.baseUrl}/api/v1/events`, {
    method: 'OPTIONS',
    headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-api-key' },
  })
  t.equal(preflight.status, 204)
  t.equal(preflight.headers.get('access-control-allow-origin'), '*')
  t.match(preflight.headers.get('access-control-allow-headers') ?? '', /X-API-Key/i)
  t.equal(preflight.headers.get('access-control-allow-credentials'), null, 'never allows credentials')
  const health = await fetch(`${stack.baseUrl}/health`)
  t.equal(health.status, 200)
  t.same(await health.json(), { status: 'ok', service: 'svc-ingress', restarts: 0 })
})

t.test('events arriving together are rate-limited per key within their batch: exactly the limit is queued', async (t) => {
  const stack = await startTestStack(t, { env: { SVC_EVENTS_PER_KEY_PER_MINUTE: '5' } })
  const headers = { ...JSON_TYPE, 'X-API-Key': stack.ingestKey }
  const answers = await Promise.all(Array.from({ length: 12 }, () => postEvent(stack.baseUrl, sampleEvent(), headers)))
  const statuses = answers.map((a) => a.status).sort()
  t.same(statuses, [...Array(5).fill(202), ...Array(7).fill(429)])
  t.ok(answers.filter((a) => a.status === 429).every((a) => a.body.code === 'rate_limited' && Number(a.body.retry_after) >= 1), 'each refusal says when to retry')
  t.equal(await queuedEvents(stack), 5, 'only the accepted five are on the stream')
  const ids = new Set(answers.filter((a) => a.status === 202).map((a) => a.body.id))
  t.equal(ids.size, 5, 'each accepted event has its own id')
})

t.test('a key over its limit does not hold back another key whose events arrive in the same batch', async (t) => {
  const stack = await startTestStack(t, { env: { SVC_EVENTS_PER_KEY_PER_MINUTE: '3' } })
  const other = await stack.mint('ingest')
  const send = (key: string, n: number) => postEvent(stack.baseUrl, sampleEvent({ n }), { ...JSON_TYPE, 'X-API-Key': key })
  const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? send(stack.ingestKey, i) : send(other, i))))
  const byKey = (even: boolean) => answers.filter((_, i) => (i % 2 === 0) === even).map((a) => a.status).sort()
  t.same(byKey(true), [202, 202, 202, 429, 429, 429], 'the first key gets exactly its limit')
  t.same(byKey(false), [202, 202, 202, 429, 429, 429], 'and so does the second, in the same turn')
  t.equal(await queuedEvents(stack), 6, 'the stream holds the six admitted events')
  const retry = answers.filter((a) => a.status === 429).map((a) => Number(a.body.retry_after))
  t.ok(retry.every((s) => s >= 1 && s <= 60), `retry_after is the rest of the one-minute window: ${[...new Set(retry)].join(', ')} s`)
  // The window's counters were moved exactly once per admitted event: one more is refused at once.
  t.equal((await send(other, 99)).status, 429)
})
