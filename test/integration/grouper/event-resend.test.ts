import t from 'tap'
import { randomUUID } from 'node:crypto'
import { postEvent, sampleEvent, startTestStack, waitFor } from '../../helpers/stack.js'

t.test('an event sent again with its event_id (its first answer was lost) is stored and counted once, whether the copies meet in one batch or in two', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const headers = { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey }
  const once = sampleEvent({ event_id: randomUUID(), session_id: 'resent-later' })
  const first = await postEvent(stack.baseUrl, once, headers)
  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === 1, 10_000, 50)
  const again = await postEvent(stack.baseUrl, once, headers)
  t.equal(again.status, 202, 'the resend is accepted')
  t.equal(again.body.id, first.body.id, 'under the same id')

  const twice = sampleEvent({ event_id: randomUUID(), session_id: 'sent-twice-at-once' })
  const answers = await Promise.all([postEvent(stack.baseUrl, twice, headers), postEvent(stack.baseUrl, twice, headers)])
  t.same(answers.map((a) => a.status), [202, 202])
  const plain = sampleEvent({ session_id: 'no-event-id' })
  await postEvent(stack.baseUrl, plain, headers)
  await postEvent(stack.baseUrl, plain, headers)

  await waitFor(async () => (await stack.worker!.services[0]!.depth()).eligible === 0 && (await stack.db.query('SELECT 1 FROM events')).rowCount! >= 4, 10_000, 50)
  const { rows } = await stack.db.query<{ session_id: string; n: number }>('SELECT session_id, count(*)::int AS n FROM events GROUP BY session_id ORDER BY session_id')
  t.same(rows, [
    { session_id: 'no-event-id', n: 2 },
    { session_id: 'resent-later', n: 1 },
    { session_id: 'sent-twice-at-once', n: 1 },
  ], 'one row per event_id; without one, each send is an event')
  const counted = await stack.db.query<{ n: number }>('SELECT sum(event_count)::int AS n FROM issues')
  t.equal(counted.rows[0]!.n, 4, 'and the issue counts four events, not six')
})

t.test('a malformed event_id is refused with the field named', async (t) => {
  const stack = await startTestStack(t)
  const answer = await postEvent(stack.baseUrl, sampleEvent({ event_id: 'not-a-uuid' }), { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey })
  t.equal(answer.status, 400)
  t.match(answer.body, { code: 'invalid_event', field: 'event_id' })
})
