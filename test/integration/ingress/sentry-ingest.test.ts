import t from 'tap'
import type { ErrorEvent } from '../../../shared/domain/event.js'
import { browserEvent, envelope, envelopePath, eventEnvelope, postSentry, sentryId } from '../../helpers/browser/sentry.js'
import { postEvent, queuedEvents, sampleEvent, startTestStack, waitFor, type TestStack } from '../../helpers/stack.js'

interface StoredEvent {
  issue_id: string
  release: string | null
  payload: Pick<ErrorEvent, 'error' | 'context' | 'sdk_version' | 'environment' | 'user' | 'debug_ids'> & { handled?: boolean; tags?: unknown; breadcrumbs: Array<{ type: string; message: string }> }
}

const storedEvents = async (stack: TestStack): Promise<StoredEvent[]> => (await stack.db.query<StoredEvent>('SELECT issue_id, release, payload FROM events ORDER BY received_at')).rows

t.test('an envelope as @sentry/browser sends it is answered 200 with its id and becomes an issue in our format', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const event = browserEvent()
  const answer = await postSentry(stack.baseUrl, envelopePath(stack.projectId, stack.ingestKey), eventEnvelope(event))
  t.equal(answer.status, 200)
  t.same(answer.body, { id: event.event_id })
  t.equal(answer.headers.get('access-control-allow-origin'), '*')
  const [stored] = await waitFor(async () => ((await storedEvents(stack)).length === 1 ? storedEvents(stack) : undefined), 5000)
  const payload = stored!.payload
  t.equal(payload.error.type, 'TypeError')
  t.equal(
    payload.error.stack,
    "TypeError: Cannot read properties of undefined (reading 'id')\n    at renderCart (http://localhost:5173/assets/index-4f3a9c2b.js:12:34)\n    at onClick (http://localhost:5173/assets/index-4f3a9c2b.js:40:7)",
    'the throw site comes first, as in a V8 stack',
  )
  t.same(payload.context, { url: 'http://localhost:5173/cart', user_agent: 'Mozilla/5.0 test' })
  t.equal(payload.sdk_version, 'sentry.javascript.browser@11.0.0')
  t.equal(payload.environment, 'production')
  t.equal(stored!.release, 'shop@1.2.3')
  t.same(payload.user, { id: 'u1', email: 'ada@example.com' })
  t.same(payload.debug_ids, { 'http://localhost:5173/assets/index-4f3a9c2b.js': 'c0ffee00-1234-4abc-8def-0123456789ab' })
  t.equal(payload.handled, false, 'the mechanism says the error was not handled')
  t.same(payload.tags, { team: 'checkout' })
  t.same(payload.breadcrumbs.map((b) => [b.type, b.message]), [['console', 'cart opened'], ['http', 'GET /api/cart'], ['click', 'button#checkout']])
  const { rows } = await stack.db.query<{ title: string }>('SELECT title FROM issues')
  t.match(rows[0]!.title, /^TypeError: Cannot read properties of undefined/)
})

t.test('the same bug from our SDK and from @sentry/browser is one issue', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  t.equal((await postEvent(stack.baseUrl, sampleEvent(), { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey })).status, 202)
  t.equal((await postSentry(stack.baseUrl, envelopePath(stack.projectId, stack.ingestKey), eventEnvelope(browserEvent()))).status, 200)
  const events = await waitFor(async () => ((await storedEvents(stack)).length === 2 ? storedEvents(stack) : undefined), 5000)
  t.equal(events[0]!.issue_id, events[1]!.issue_id, 'both events are in the same issue')
  const { rows } = await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM issues')
  t.equal(rows[0]!.n, '1')
})

t.test('the key is read from X-Sentry-Auth, from ?sentry_key= and from the envelope header\'s dsn', async (t) => {
  const stack = await startTestStack(t)
  const auth = { 'X-Sentry-Auth': `Sentry sentry_version=7, sentry_client=sentry.javascript.browser/11.0.0, sentry_key=${stack.ingestKey}` }
  const fromHeader = await postSentry(stack.baseUrl, `/api/${stack.projectId}/envelope/`, eventEnvelope(browserEvent()), auth)
  t.equal(fromHeader.status, 200, 'X-Sentry-Auth')
  const fromQuery = await postSentry(stack.baseUrl, envelopePath(stack.projectId, stack.ingestKey), eventEnvelope(browserEvent()))
  t.equal(fromQuery.status, 200, 'sentry_key')
  const dsn = `http://${stack.ingestKey}@127.0.0.1/${stack.projectId}`
  const fromDsn = await postSentry(stack.baseUrl, `/api/${stack.projectId}/envelope/`, eventEnvelope(browserEvent(), { dsn }))
  t.equal(fromDsn.status, 200, 'envelope dsn')
  const store = await postSentry(stack.baseUrl, `/api/${stack.projectId}/store/`, JSON.stringify(browserEvent()), { ...auth, 'Content-Type': 'application/json' })
  t.equal(store.status, 200, '/store/ with X-Sentry-Auth')
  t.match(store.body.id, /^[0-9a-f]{32}$/)
  const noSlash = await postSentry(stack.baseUrl, `/api/${stack.projectId}/store?sentry_key=${stack.ingestKey}`, JSON.stringify(browserEvent()))
  t.equal(noSlash.status, 200, 'without the trailing slash')
  t.equal(await queuedEvents(stack), 5)
})

t.test('a wrong, missing or misplaced key is answered as the events route answers it, and nothing is queued', async (t) => {
  const stack = await startTestStack(t)
  const body = eventEnvelope(browserEvent())
  const unknown = await postSentry(stack.baseUrl, envelopePath(stack.projectId, 'svc_pk_aaaaaaaaaaaa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), body)
  t.same([unknown.status, unknown.body.code], [401, 'key_unknown'])
  const malformed = await postSentry(stack.baseUrl, envelopePath(stack.projectId, 'abc123'), body)
  t.same([malformed.status, malformed.body.code], [401, 'key_malformed'])
  const missing = await postSentry(stack.baseUrl, `/api/${stack.projectId}/envelope/`, body)
  t.same([missing.status, missing.body.code], [401, 'key_missing'])
  const sourcemapKey = await postSentry(stack.baseUrl, envelopePath(stack.projectId, await stack.mint('sourcemap')), body)
  t.same([sourcemapKey.status, sourcemapKey.body.code], [403, 'insufficient_scope'])
  const { rows } = await stack.db.query<{ id: string }>("INSERT INTO projects (name) VALUES ('other') RETURNING id")
  const elsewhere = await postSentry(stack.baseUrl, envelopePath(rows[0]!.id, stack.ingestKey), body)
  t.same([elsewhere.status, elsewhere.body.code], [403, 'project_mismatch'], "another project's id in the URL")
  const junk = await postSentry(stack.baseUrl, envelopePath('not-a-project', stack.ingestKey), body)
  t.same([junk.status, junk.body.code], [403, 'project_mismatch'])
  const storeMissing = await postSentry(stack.baseUrl, `/api/${stack.projectId}/store/`, JSON.stringify(browserEvent()))
  t.same([storeMissing.status, storeMissing.body.code], [401, 'key_missing'])
  t.equal(await queuedEvents(stack), 0)
  const { rows: numbers } = await stack.db.query<{ id: string; dsn_number: string }>('SELECT id, dsn_number FROM projects WHERE id = ANY($1::uuid[])', [[stack.projectId, rows[0]!.id]])
  const number = (id: string): string => numbers.find((n) => n.id === id)!.dsn_number
  const otherNumber = await postSentry(stack.baseUrl, envelopePath(number(rows[0]!.id), stack.ingestKey), body)
  t.same([otherNumber.status, otherNumber.body.code], [403, 'project_mismatch'], "another project's DSN number in the URL")
  t.equal(await queuedEvents(stack), 0)
  const numbered = await postSentry(stack.baseUrl, envelopePath(number(stack.projectId), stack.ingestKey), body)
  t.equal(numbered.status, 200, "the project's own DSN number")
})

t.test('a malformed envelope or event is answered 400 with a stable code', async (t) => {
  const stack = await startTestStack(t)
  const path = envelopePath(stack.projectId, stack.ingestKey)
  const cases: Array<[string, string, string]> = [
    ['not JSON', 'hello\n{"type":"event"}\n{}\n', 'invalid_envelope'],
    ['an item header without type', `{}\n{"length":2}\n{}\n`, 'invalid_envelope'],
    ['a length past the end', `{}\n{"type":"event","length":999}\n{}\n`, 'invalid_envelope'],
    ['a negative length', `{}\n{"type":"event","length":-1}\n{}\n`, 'invalid_envelope'],
    ['an event that is not JSON', `{}\n{"type":"event"}\n{not json\n`, 'invalid_envelope'],
    ['two events', envelope({}, [[{ type: 'event' }, browserEvent()], [{ type: 'event' }, browserEvent()]]), 'invalid_envelope'],
    ['an empty body', '', 'invalid_envelope'],
    ['an event that is not an object', `{}\n{"type":"event"}\n[1,2]\n`, 'invalid_envelope'],
  ]
  for (const [what, body, code] of cases) {
    const answer = await postSentry(stack.baseUrl, path, body)
    t.same([answer.status, answer.body.code], [400, code], what)
    t.ok(typeof answer.body.message === 'string' && answer.body.message.length > 10, `${what}: says what is wrong`)
  }
  const store = await postSentry(stack.baseUrl, `/api/${stack.projectId}/store/?sentry_key=${stack.ingestKey}`, '{nope')
  t.same([store.status, store.body.code], [400, 'invalid_json'])
  const storeArray = await postSentry(stack.baseUrl, `/api/${stack.projectId}/store/?sentry_key=${stack.ingestKey}`, '[1]')
  t.same([storeArray.status, storeArray.body.code], [400, 'invalid_event'])
  t.equal(await queuedEvents(stack), 0)
  t.equal((await fetch(`${stack.baseUrl}/health`)).status, 200, 'the process is still serving')
})

t.test('a preflight is answered with the headers the browser SDK sends', async (t) => {
  const stack = await startTestStack(t)
  const response = await fetch(`${stack.baseUrl}/api/${stack.projectId}/envelope/?sentry_key=x`, { method: 'OPTIONS', headers: { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'POST' } })
  t.equal(response.status, 204)
  t.equal(response.headers.get('access-control-allow-origin'), '*')
  const allowed = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase()
  for (const header of ['content-type', 'content-encoding', 'x-sentry-auth', 'sentry-trace', 'baggage']) t.ok(allowed.includes(header), header)
  t.match(response.headers.get('access-control-allow-methods'), /POST/)
  t.equal(sentryId().length, 32)
})
