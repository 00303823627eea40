import { randomUUID } from 'node:crypto'
import t from 'tap'
import { createGrouper } from '../../../services/grouper/index.js'
import { pageIssueEvents } from '../../../services/grouper/read/issue-pages.js'
import { getLatestEvent, listRecentEvents } from '../../../services/grouper/read/issues.js'
import { storeEventBatch } from '../../../services/grouper/store-events.js'
import { loadRecentFrames, loadSubject } from '../../../services/investigator/investigation/subject.js'
import { ProjectVersions } from '../../../services/grouper/project-versions.js'
import { dataConfig } from '../../../shared/config/data.js'
import { envelopeFields, type EventEnvelope } from '../../../shared/domain/event.js'
import { KnownIds } from '../../../shared/domain/known-ids.js'
import { intakeLastDay } from '../../../shared/domain/intake-tally.js'
import { createLogger } from '../../../shared/log.js'
import { registry } from '../../../shared/metrics.js'
import { ensureGroup } from '../../../shared/streams/index.js'
import { GROUPS } from '../../../shared/topology.js'
import { createObjectStore } from '../../../shared/object-store.js'
import { sampleEvent, startTestStack, waitFor, type TestStack } from '../../helpers/stack.js'

const HOUR = 60 * 60 * 1000
/** K = 5 whole a window, then one in 4: the 9th, 13th, 17th... are whole too. */
const SAMPLING = { storedPerWindow: 5, windowMs: HOUR, oneIn: 4 }

/** n events of the error named message, one user each (user-<from + i>), received a millisecond apart from at. */
function flood(stack: TestStack, message: string, from: number, n: number, at: number): EventEnvelope[] {
  return Array.from({ length: n }, (_, i) => ({
    id: randomUUID(),
    projectId: stack.projectId,
    keyId: 'seede2e00001',
    receivedAt: at + from + i,
    body: JSON.stringify(sampleEvent({ error: { type: 'Error', message: `${message} #${from + i}`, stack: `Error: ${message}\n    at f (http://localhost:5173/assets/${message}.js:1:1)` }, user: { id: `user-${from + i}` } })),
  }))
}

const store = (stack: TestStack, envelopes: EventEnvelope[]) => storeEventBatch(stack.db, envelopes, undefined, new ProjectVersions(stack.db), { issues: new KnownIds(), environments: new KnownIds() }, SAMPLING)

async function issueOf(stack: TestStack, id: string) {
  const { rows } = await stack.db.query<{ event_count: number; user_count: number; last_seen: Date; whole: number; slim: number }>(
    `SELECT i.event_count::int, i.user_count::int, i.last_seen,
            (SELECT count(*)::int FROM events e WHERE e.issue_id = i.id AND e.whole) AS whole,
            (SELECT count(*)::int FROM events e WHERE e.issue_id = i.id AND NOT e.whole) AS slim
       FROM issues i WHERE i.id = $1`,
    [id],
  )
  return rows[0]!
}

t.test('a flood of one issue stores K whole and every N-th past K, and counts every event', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const at = Date.now() - 10 * 60 * 1000
  const a = flood(stack, 'flood', 1, 20, at)
  const b = flood(stack, 'other', 1, 3, at)
  const first = await store(stack, [...a.slice(0, 12), ...b])
  const second = await store(stack, a.slice(12))
  const floodId = second.changes[0]!.issueId
  const otherId = first.changes.find((c) => c.issueId !== floodId)!.issueId
  t.same([first.sampled, second.sampled], [{ [stack.projectId]: 6 }, { [stack.projectId]: 6 }], 'events 6-8, 10-12 in the first batch; 14-16, 18-20 in the second')
  t.same([first.stored, second.stored], [15, 8], 'a slim row is a stored event')
  t.same(first.changes.find((c) => c.issueId === floodId)!.events, 12, 'the alerter hears of every event, slim or whole')
  t.same(await issueOf(stack, floodId), { event_count: 20, user_count: 20, last_seen: new Date(at + 20), whole: 8, slim: 12 })
  t.same(await issueOf(stack, otherId), { event_count: 3, user_count: 3, last_seen: new Date(at + 3), whole: 3, slim: 0 }, 'another issue in the flood is unaffected')

  const slimRow = await stack.db.query<{ payload: unknown; grouping: { frames?: unknown } }>('SELECT payload, grouping FROM events WHERE id = $1', [a[19]!.id])
  t.same(slimRow.rows[0]!.payload, { sampled: true }, 'a slim row keeps no payload')
  t.notOk(slimRow.rows[0]!.grouping.frames, 'nor frames')

  const latest = await getLatestEvent(stack.db, floodId)
  t.equal(latest?.id, a[16]!.id, 'the latest event shown is the latest whole one (the 17th)')
  t.equal(latest?.message, 'flood #17')
  const page = await pageIssueEvents(stack.db, floodId, undefined, 50, { message: 100, stack: 100 })
  t.same(page.map((e) => e.message), ['flood #17', 'flood #13', 'flood #9', 'flood #5', 'flood #4', 'flood #3', 'flood #2', 'flood #1'], 'event pages list the whole events')
  t.same((await listRecentEvents(stack.db, floodId)).map((e) => e.message).slice(0, 2), ['flood #17', 'flood #13'])
  t.equal((await loadSubject(stack.db, floodId))?.event?.message, 'flood #17', 'an investigation reads a whole event')
  t.same((await loadRecentFrames(stack.db, floodId))?.events.map((e) => e.url), Array(5).fill('http://localhost:5173/cart'), 'and the stack check the pages and frames of whole events only')
})

t.test('a redelivered batch changes nothing, and a partly redelivered one counts only its new events', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const at = Date.now() - 10 * 60 * 1000
  const a = flood(stack, 'again', 1, 10, at)
  const first = await store(stack, a)
  const id = first.changes[0]!.issueId
  const before = await issueOf(stack, id)
  t.same(before, { event_count: 10, user_count: 10, last_seen: new Date(at + 10), whole: 6, slim: 4 })
  const again = await store(stack, a)
  t.same([again.stored, again.duplicates, again.sampled, again.changes[0]!.events], [0, 10, {}, 0], 'nothing stored, nothing tallied')
  t.same(await issueOf(stack, id), before, 'nothing counted')

  const more = flood(stack, 'again', 11, 3, at)
  const partly = await store(stack, [...a.slice(7), ...more])
  t.same([partly.stored, partly.duplicates, partly.sampled], [3, 3, { [stack.projectId]: 2 }], 'the 13th is whole, the 11th and 12th slim, the resent ones take no place in the window')
  t.same(await issueOf(stack, id), { event_count: 13, user_count: 13, last_seen: new Date(at + 13), whole: 7, slim: 6 })
  const window = await stack.db.query<{ sample_window_events: number }>('SELECT sample_window_events FROM issues WHERE id = $1', [id])
  t.equal(window.rows[0]!.sample_window_events, 13)
})

t.test('a new window stores whole again', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const at = Date.now() - 2 * HOUR
  const first = await store(stack, flood(stack, 'windows', 1, 8, at))
  const id = first.changes[0]!.issueId
  t.same(first.sampled, { [stack.projectId]: 3 })
  const next = await store(stack, flood(stack, 'windows', 9, 7, at + HOUR))
  t.same(next.sampled, { [stack.projectId]: 2 }, 'five whole again, the sixth and seventh slim')
  t.same(await issueOf(stack, id), { event_count: 15, user_count: 15, last_seen: new Date(at + HOUR + 15), whole: 10, slim: 5 })
})

t.test('the grouper tallies sampled events for the storage panel and counts them', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const log = createLogger('silent')
  const objects = await createObjectStore(stack.config.objectStore, log)
  const envelopes = flood(stack, 'tally', 1, 5, Date.now() - 60_000)
  await ensureGroup(stack.redis, stack.keys.events, GROUPS.grouper)
  for (const envelope of envelopes) await stack.redis.xadd(stack.keys.events, '*', ...envelopeFields(envelope))
  const data = { ...dataConfig({}), issueStoredPerWindow: 1, sampleOneIn: 2 }
  const grouper = createGrouper({ db: stack.db, objects, redis: stack.redis, keys: stack.keys, log, timing: stack.config.stream, data })
  await grouper.start()
  t.teardown(() => grouper.stop())
  const tally = await waitFor(async () => {
    const sum = await intakeLastDay(stack.redis, stack.keys, stack.projectId)
    return sum.sampled >= 2 ? sum : undefined
  }, 10_000, 50)
  t.same(tally, { refused: 0, sampled: 2 }, 'the 2nd and 4th of five are slim (K = 1, then one in 2)')
  const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND whole', [stack.projectId])
  t.equal(rows[0]!.n, 3)
  const metric = await registry.getSingleMetric('svc_grouper_events_sampled_total')?.get()
  t.equal(metric?.values[0]?.value, 2, 'svc_grouper_events_sampled_total')
})

t.test('two batches of one issue stored at once keep K whole and every N-th past K between them', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const at = Date.now() - 10 * 60 * 1000
  const [one, two] = await Promise.all([store(stack, flood(stack, 'both', 1, 10, at)), store(stack, flood(stack, 'both', 11, 10, at))])
  t.equal(one!.changes[0]!.issueId, two!.changes[0]!.issueId)
  t.equal((one!.sampled[stack.projectId] ?? 0) + (two!.sampled[stack.projectId] ?? 0), 12, 'whichever went first, 8 of 20 whole')
  t.same(await issueOf(stack, one!.changes[0]!.issueId), { event_count: 20, user_count: 20, last_seen: new Date(at + 20), whole: 8, slim: 12 })
})

t.test('a batch that guessed its window before another batch of the issue committed is rewritten to the exact choice, bodies and all', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const at = Date.now() - 10 * 60 * 1000
  const first = await store(stack, flood(stack, 'guess', 1, 3, at))
  const id = first.changes[0]!.issueId
  const one = flood(stack, 'guess', 4, 10, at)
  const two = flood(stack, 'guess', 14, 10, at)
  // Holding the issue's lock lets both batches guess from 3 events and insert, then take turns settling.
  const { stores } = await stack.db.withTransaction(async (client) => {
    await client.query('SELECT 1 FROM issues WHERE id = $1 FOR NO KEY UPDATE', [id])
    const stores = Promise.all([store(stack, one), store(stack, two)])
    const waiting = await waitFor(async () => {
      const { rows } = await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)
      return rows[0]!.n >= 2 ? rows[0]!.n : undefined
    }, 10_000, 20)
    t.equal(waiting, 2, 'both batches inserted and wait for the issue')
    return { stores }
  })
  const both = await stores
  t.equal(both[0].stored + both[1].stored, 20)
  t.equal((both[0].sampled[stack.projectId] ?? 0) + (both[1].sampled[stack.projectId] ?? 0), 14, 'of the 4th to the 23rd, the 6-8, 10-12, 14-16, 18-20 and 22-23 are slim')
  t.same(await issueOf(stack, id), { event_count: 23, user_count: 23, last_seen: new Date(at + 23), whole: 9, slim: 14 })
  const { rows } = await stack.db.query<{ whole: boolean; has_error: boolean; sampled: boolean; frames: boolean }>(
    `SELECT whole, payload->'error' IS NOT NULL AS has_error, payload::text = '{"sampled":true}' AS sampled, grouping->'frames' IS NOT NULL AS frames FROM events WHERE issue_id = $1`,
    [id],
  )
  t.ok(rows.filter((r) => r.whole).every((r) => r.has_error && !r.sampled && r.frames), 'every whole row holds its body and frames')
  t.ok(rows.filter((r) => !r.whole).every((r) => !r.has_error && r.sampled && !r.frames), 'every slim row holds neither')
  const window = await stack.db.query<{ sample_window_events: number }>('SELECT sample_window_events FROM issues WHERE id = $1', [id])
  t.equal(window.rows[0]!.sample_window_events, 23)
})
