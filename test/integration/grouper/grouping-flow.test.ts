import t from 'tap'
import type { EventEnvelope } from '../../../shared/domain/event.js'
import { storeEventBatch } from '../../../services/grouper/store-events.js'
import { postEvent, sampleEvent, startTestStack, waitFor } from '../../helpers/stack.js'

interface IssueRow {
  id: string
  status: string
  reason_code: string
  reason_message: string
  kind: string
  event_count: string
  user_count: number
  session_count: number
  title: string
  created_at: Date
}

t.test('an accepted event becomes a new issue within a second', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const started = Date.now()
  const answer = await postEvent(stack.baseUrl, sampleEvent({ session_id: 's1', environment: 'production' }), {
    'Content-Type': 'application/json',
    'X-API-Key': stack.ingestKey,
  })
  t.equal(answer.status, 202)
  const issue = await waitFor(async () => (await stack.db.query<IssueRow>('SELECT * FROM issues')).rows[0], 5000, 10)
  t.ok(Date.now() - started < 1000, `grouped in ${Date.now() - started} ms`)
  t.equal(issue.status, 'new')
  t.equal(issue.reason_code, '')
  t.equal(issue.reason_message, '')
  t.equal(issue.kind, 'error')
  t.ok(issue.created_at instanceof Date)
  t.match(issue.title, /^TypeError: Cannot read properties of undefined/)
  const { rows: envs } = await stack.db.query<{ name: string }>('SELECT name FROM environments WHERE project_id = $1 ORDER BY name', [stack.projectId])
  t.same(envs.map((e) => e.name), ['development', 'production'], 'an environment named for the first time is created')
  const { rows: events } = await stack.db.query<{ environment_id: string | null; session_id: string }>('SELECT environment_id, session_id FROM events')
  t.ok(events[0]?.environment_id, 'the event points at its environment')
})

t.test('one bug from several sessions and users is one issue with distinct counts', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const headers = { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey }
  const sends = [
    { session_id: 'a', user: { id: 'u1' } },
    { session_id: 'a', user: { id: 'u1' } },
    { session_id: 'b', user: { id: 'u2' } },
    { session_id: 'c' },
  ]
  for (const extra of sends) t.equal((await postEvent(stack.baseUrl, sampleEvent(extra), headers)).status, 202)
  const issue = await waitFor(async () => {
    const row = (await stack.db.query<IssueRow>('SELECT * FROM issues')).rows[0]
    return row && Number(row.event_count) === 4 ? row : undefined
  })
  t.equal((await stack.db.query('SELECT 1 FROM issues')).rowCount, 1, 'one issue')
  t.equal(issue.session_count, 3, 'three distinct sessions')
  t.equal(issue.user_count, 2, 'two distinct users')
  const { rows } = await stack.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM issue_actors WHERE issue_id = $1 AND actor_kind = 's' AND last_seen > now() - interval '7 days'`,
    [issue.id],
  )
  t.equal(rows[0]!.n, 3, 'distinct sessions in the last 7 days read from the actor table')
})

t.test('different bugs become different issues; noise is kept in a noise issue; chunk-load errors fold', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const headers = { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey }
  const other = sampleEvent({ error: { type: 'RangeError', message: 'bad length', stack: 'RangeError: bad length\n    at pad (http://localhost:5173/assets/util-1a2b3c4d.js:3:9)' } })
  const noise = sampleEvent({ error: { type: 'Error', message: 'ResizeObserver loop completed with undelivered notifications.', stack: '' } })
  const chunkA = sampleEvent({ error: { type: 'TypeError', message: 'Failed to fetch dynamically imported module: https://a.example/assets/Cart-1234abcd.js', stack: '' } })
  const chunkB = sampleEvent({ error: { type: 'TypeError', message: 'error loading dynamically imported module: https://a.example/assets/Home-99ff00aa.js', stack: '' } })
  for (const body of [sampleEvent(), other, noise, chunkA, chunkB]) t.equal((await postEvent(stack.baseUrl, body, headers)).status, 202)
  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === 5)
  await waitFor(async () => (await stack.worker!.services[0]!.depth()).eligible === 0)
  const { rows } = await stack.db.query<{ title: string; event_count: string; noise: string }>('SELECT title, event_count, noise FROM issues ORDER BY title')
  t.equal(rows.length, 4, 'the original bug, the other bug, one folded chunk-load issue and one noise issue')
  t.ok(rows.some((r) => Number(r.event_count) === 2), 'both chunk-load errors landed in one issue')
  t.same(rows.filter((r) => r.noise !== '').map((r) => [r.noise, Number(r.event_count)]), [['resize-observer-loop', 1]], 'the ResizeObserver loop is stored, in an issue marked as noise')
})

t.test('storing the same batch twice never double-counts', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const envelopes: EventEnvelope[] = ['x', 'y', 'x'].map((session, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    projectId: stack.projectId,
    keyId: 'seede2e00001',
    receivedAt: Date.now(),
    body: JSON.stringify(sampleEvent({ session_id: session })),
  }))
  const first = await storeEventBatch(stack.db, envelopes)
  const again = await storeEventBatch(stack.db, envelopes)
  t.equal(first.stored, 3)
  t.equal(again.stored, 0)
  t.equal(again.duplicates, 3)
  const { rows } = await stack.db.query<IssueRow>('SELECT * FROM issues')
  t.equal(rows.length, 1)
  t.equal(Number(rows[0]!.event_count), 3, 'event count unchanged by the redelivery')
  t.equal(rows[0]!.session_count, 2, 'session count unchanged by the redelivery')
})

t.test('an entry whose body is not an event is reported as unreadable and does not block its batch', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const envelope = (id: string, body: string): EventEnvelope => ({ id, projectId: stack.projectId, keyId: 'seede2e00001', receivedAt: Date.now(), body })
  const outcome = await storeEventBatch(stack.db, [
    envelope('00000000-0000-4000-8000-0000000000a1', '{"not":"an event"}'),
    envelope('00000000-0000-4000-8000-0000000000a2', 'not json'),
    envelope('00000000-0000-4000-8000-0000000000a3', JSON.stringify(sampleEvent())),
  ])
  t.same(outcome.unreadable, ['00000000-0000-4000-8000-0000000000a1', '00000000-0000-4000-8000-0000000000a2'])
  t.equal(outcome.stored, 1, 'the good event in the same batch is stored')
})

t.test('an event whose text PostgreSQL cannot hold (NUL, lone surrogates) is stored with U+FFFD in their place', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const body = JSON.stringify(sampleEvent({ error: { type: 'Error', message: 'nul \u0000 here, half \ud800 a pair', stack: 'Error: x\n    at f (http://localhost:5173/a.js:1:1)' }, release: 'r\u0000', note: { '\udc00key': 'v' } }))
  t.match(body, /\\u0000/, 'JSON.stringify escapes the NUL, as a browser would')
  const outcome = await storeEventBatch(stack.db, [{ id: '00000000-0000-4000-8000-0000000000b1', projectId: stack.projectId, keyId: 'seede2e00001', receivedAt: Date.now(), body }])
  t.equal(outcome.stored, 1)
  const { rows } = await stack.db.query<{ title: string; release: string; message: string; note: string }>(
    `SELECT i.title, e.release, e.payload->'error'->>'message' AS message, (e.payload->'note')::text AS note FROM events e JOIN issues i ON i.id = e.issue_id`,
  )
  t.equal(rows[0]!.title, 'Error: nul \uFFFD here, half \uFFFD a pair')
  t.equal(rows[0]!.message, 'nul \uFFFD here, half \uFFFD a pair')
  t.equal(rows[0]!.release, 'r\uFFFD')
  t.equal(rows[0]!.note, '{"\uFFFDkey":"v"}', 'keys are cleaned too')
})

t.test('a body that only mentions \\u0000 as text is stored byte for byte', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const body = JSON.stringify(sampleEvent({ error: { type: 'Error', message: 'literal \\u0000 and \\ud800 in a log line', stack: '' } }))
  await storeEventBatch(stack.db, [{ id: '00000000-0000-4000-8000-0000000000b2', projectId: stack.projectId, keyId: 'seede2e00001', receivedAt: Date.now(), body }])
  const { rows } = await stack.db.query<{ payload: string }>('SELECT payload::text AS payload FROM events')
  t.equal(rows[0]!.payload, body)
})

t.test('a body in any script, with characters outside the basic plane, is stored byte for byte', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const body = JSON.stringify(sampleEvent({ error: { type: 'TypeError', message: 'ünïcödé 🐛 не определено 未定义 "quoted"', stack: 'TypeError\n    at ✓ (http://localhost:5173/src/ページ.tsx:1:1)' }, release: 'café@1' }))
  await storeEventBatch(stack.db, [{ id: '00000000-0000-4000-8000-0000000000b3', projectId: stack.projectId, keyId: 'seede2e00001', receivedAt: Date.now(), body }])
  const { rows } = await stack.db.query<{ payload: string; release: string }>('SELECT payload::text AS payload, release FROM events')
  t.equal(rows[0]!.payload, body)
  t.equal(rows[0]!.release, 'café@1')
})

t.test('within one batch, the same error is grouped once per page origin: an extension page owns its frames, a web page does not', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const error = { type: 'TypeError', message: 'x is undefined', stack: 'TypeError: x is undefined\n    at render (chrome-extension://abcdefgh/popup.js:10:5)\n    at init (chrome-extension://abcdefgh/popup.js:3:1)' }
  const envelope = (n: number, url: string): EventEnvelope => ({ id: `00000000-0000-4000-8000-0000000000c${n}`, projectId: stack.projectId, keyId: 'seede2e00001', receivedAt: Date.now(), body: JSON.stringify(sampleEvent({ error, context: { url, user_agent: 'test' }, session_id: `s${n}` })) })
  const outcome = await storeEventBatch(stack.db, [
    envelope(1, 'chrome-extension://abcdefgh/popup.html'),
    envelope(2, 'https://shop.example.com/cart'),
    envelope(3, 'chrome-extension://abcdefgh/options.html'),
  ])
  t.equal(outcome.stored, 3, 'all three events are stored')
  t.equal(outcome.noise, 1, 'on a web page the same stack is extension code only: noise')
  const { rows } = await stack.db.query<{ session_id: string; culprit: string; event_count: number; session_count: number }>(
    "SELECT e.session_id, i.culprit, i.event_count, i.session_count FROM events e JOIN issues i ON i.id = e.issue_id WHERE i.noise = '' ORDER BY e.session_id",
  )
  t.same(rows.map((r) => r.session_id), ['s1', 's3'], 'each stored event keeps its own session')
  t.match(rows[0]!.culprit, /^render \(/, 'its frames are in-app: the culprit is the top one')
  t.same([rows[0]!.event_count, rows[0]!.session_count], [2, 2], 'one issue, counted once per event')
})
