/**
 * A digest's run: what it picks and writes, its check item by item, and what restarts and a second
 * worker cannot make it do twice.
 */
import t from 'tap'
import type { ModelTurn } from '../../helpers/loopback/model-server.js'
import { startDigestHarness } from '../../helpers/digest-harness.js'

const MINUTE = 60_000

/** The user message the model was given. */
function promptOf(turn: ModelTurn): string {
  const first = turn.messages[0]
  return first && first.role === 'user' ? first.text : ''
}

t.test('a written paragraph with a wrong number falls back to its mechanical line; the other stays as written, and the next day is written normally', async (t) => {
  const texts = [
    (pr: string) => `Good morning!\n[1] The cart broke for 14 people; a draft fix waits for review: ${pr}\n[2] Dates failed to parse for 30 people.`,
    (pr: string) => `[1] The search box crashed for 5 people. Fix: ${pr}`,
  ]
  let day = 0
  const h = await startDigestHarness(t, {
    start: '2026-06-10T08:59:00Z',
    script: (turn) => {
      const pr = /https:\/\/github\.com\/acme\/shop\/pull\/\d+/.exec(promptOf(turn))?.[0] ?? ''
      return { text: texts[day]!(pr) }
    },
  })
  const project = await h.project('Shop', 'UTC')
  await h.completed(project.id, { title: 'TypeError: cart is undefined', users: 14, at: new Date('2026-06-10T03:00:00Z'), fix: { number: 42 } })
  await h.completed(project.id, { title: 'RangeError: invalid date <!channel>', users: 3, at: new Date('2026-06-10T04:00:00Z') })
  const digester = await h.digester()
  await h.settle(digester)
  h.clock.set('2026-06-10T09:00:10Z')
  await h.settle(digester)
  h.clock.advance(10 * MINUTE)
  await h.settle(digester)

  const [sent] = h.posts(project.hook)
  t.equal(
    sent,
    'Daily digest for Shop, 2026-06-10: 2 updates since the last digest.\n\n' +
      '• The cart broke for 14 people; a draft fix waits for review: https://github.com/acme/shop/pull/42\n\n' +
      `• \`RangeError: invalid date &lt;!channel&gt;\`: the cause was found in your code; 3 users affected. Details: https://svc.example.com/projects/${project.id}/issues/${(await h.stack.db.query<{ id: string }>(`SELECT id FROM issues WHERE title LIKE 'RangeError%'`)).rows[0]!.id}`,
    'item 1 as written, item 2 as its mechanical line, the mention escaped',
  )
  const { rows: items } = await h.stack.db.query<{ position: number; check_result: string; check_reason: string }>(`SELECT position, check_result, check_reason FROM digest_items ORDER BY position`)
  t.match(items, [{ position: 1, check_result: 'written', check_reason: '' }, { position: 2, check_result: 'mechanical', check_reason: /^number: it claims 30/ }], 'the check says why item 2 fell back')
  const [turn] = h.model!.turns
  t.match(promptOf(turn!), /<digest_items>[\s\S]*RangeError: invalid date <!channel>[\s\S]*<\/digest_items>/, 'titles reach the model inside the untrusted-data tags')
  t.notMatch(turn!.system, /RangeError/, 'never in its instructions')
  t.notMatch(turn!.rawBody, /\/services\/T/, 'and the webhook never reaches the model')

  day = 1
  await h.completed(project.id, { title: 'Error: search failed', users: 5, at: new Date('2026-06-10T20:00:00Z'), fix: { number: 43 } })
  h.clock.set('2026-06-11T09:00:10Z')
  await h.settle(digester)
  h.clock.advance(10 * MINUTE)
  await h.settle(digester)
  t.equal(h.posts(project.hook)[1], 'Daily digest for Shop, 2026-06-11: 1 update since the last digest.\n\n• The search box crashed for 5 people. Fix: https://github.com/acme/shop/pull/43', 'the next day is written normally, with only what completed since')
})

t.test('a day with nothing to report sends no message', async (t) => {
  const h = await startDigestHarness(t, { start: '2026-06-10T08:59:00Z' })
  const project = await h.project('Quiet shop', 'UTC')
  // Completed before the window (more than 24 hours ago): the previous day's news.
  await h.completed(project.id, { title: 'Old error', users: 9, at: new Date('2026-06-09T08:00:00Z') })
  const digester = await h.digester()
  await h.settle(digester)
  h.clock.set('2026-06-10T09:00:10Z')
  await h.settle(digester)
  h.clock.advance(30 * MINUTE)
  await h.settle(digester)
  t.match(await h.digests(project.id), [{ local_date: '2026-06-10', state: 'empty', payload: null }], 'the day is recorded as empty')
  t.same(h.posts(project.hook), [], 'and nothing is posted')
})

t.test('two workers sweeping and consuming at once open one digest per project and day and send each once', async (t) => {
  const h = await startDigestHarness(t, { start: '2026-06-10T08:59:00Z' })
  const projects = []
  for (let i = 0; i < 4; i++) {
    const project = await h.project(`Shop ${i}`, 'UTC')
    await h.completed(project.id, { title: `Error in shop ${i}`, users: i + 1, at: new Date('2026-06-10T05:00:00Z') })
    projects.push(project)
  }
  const [one, two] = [await h.digester(), await h.digester()]
  await Promise.all([one.sweepNow(), two.sweepNow()])
  h.clock.set('2026-06-10T09:00:10Z')
  for (let round = 0; round < 3; round++) await Promise.all([one.sweepNow(), two.sweepNow(), h.settle(one), h.settle(two)])
  h.clock.advance(10 * MINUTE)
  for (let round = 0; round < 3; round++) await Promise.all([one.sweepNow(), two.sweepNow(), h.settle(one), h.settle(two)])
  for (const project of projects) {
    t.equal(h.posts(project.hook).length, 1, `${project.id}: one message`)
    t.match(await h.digests(project.id), [{ state: 'delivered' }], 'one digest row, delivered')
  }
})

t.test('a worker that restarts between the write and the check leaves the check to the next one, which delivers the text written before', async (t) => {
  const h = await startDigestHarness(t, { start: '2026-06-10T08:59:00Z', script: () => ({ text: '[1] Checkout broke for 7 people.' }) })
  const project = await h.project('Shop', 'UTC')
  await h.completed(project.id, { title: 'TypeError: total is NaN', users: 7, at: new Date('2026-06-10T05:00:00Z') })
  const first = await h.digester()
  await h.settle(first)
  h.clock.set('2026-06-10T09:00:10Z')
  await h.settle(first)
  t.match(await h.digests(project.id), [{ step: 'check', written_by: 'model' }], 'written by the first worker')
  await first.stop()

  const second = await h.digester({ model: false })
  h.clock.advance(10 * MINUTE)
  await h.settle(second)
  t.same(h.posts(project.hook), ['Daily digest for Shop, 2026-06-10: 1 update since the last digest.\n\n• Checkout broke for 7 people.'], 'the second worker, without a model, checks and sends what the first wrote')
  t.equal(h.model!.turns.length, 1, 'the text was not written again')
  h.clock.advance(60 * MINUTE)
  await h.settle(second)
  t.equal(h.posts(project.hook).length, 1, 'and nothing is sent twice')
})

t.test('a write that fails once is retried, and its check comes later than usual (a retry day)', async (t) => {
  const h = await startDigestHarness(t, { start: '2026-06-10T08:59:00Z' })
  const project = await h.project('Shop', 'UTC')
  await h.completed(project.id, { title: 'TypeError: cart is undefined', users: 4, at: new Date('2026-06-10T05:00:00Z') })
  // The first write's transaction fails once (a sequence is outside the transaction it fails).
  await h.stack.db.query(`CREATE SEQUENCE test_fail_once;
    CREATE FUNCTION test_fail_once() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF nextval('test_fail_once') = 1 THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$;
    CREATE TRIGGER test_fail_once BEFORE INSERT ON digest_items FOR EACH ROW EXECUTE FUNCTION test_fail_once();`)
  const digester = await h.digester()
  await h.settle(digester)
  h.clock.set('2026-06-10T09:00:10Z')
  await h.settle(digester)
  const { rows: [written] } = await h.stack.db.query<{ step: string; write_attempts: number; not_before: Date }>('SELECT step, write_attempts, not_before FROM digests WHERE project_id = $1', [project.id])
  t.match(written, { step: 'check', write_attempts: 2 }, 'written on its second attempt')
  t.equal(written!.not_before.toISOString(), '2026-06-10T09:20:10.000Z', 'its check is due twenty minutes later, not ten')
  h.clock.advance(10 * MINUTE)
  await h.settle(digester)
  t.same(h.posts(project.hook), [], 'nothing at the usual ten minutes')
  h.clock.advance(10 * MINUTE)
  await h.settle(digester)
  t.equal(h.posts(project.hook).length, 1, 'delivered after the longer wait')
})

t.test('a model that cannot answer leaves the day to the mechanical text, not skipped', async (t) => {
  const h = await startDigestHarness(t, { start: '2026-06-10T08:59:00Z', script: () => ({ status: 529 }) })
  const project = await h.project('Shop', 'UTC')
  await h.completed(project.id, { title: 'TypeError: cart is undefined', users: 4, at: new Date('2026-06-10T05:00:00Z') })
  const digester = await h.digester()
  await h.settle(digester)
  h.clock.set('2026-06-10T09:00:10Z')
  await h.settle(digester)
  h.clock.advance(10 * MINUTE)
  await h.settle(digester)
  t.ok(h.model!.turns.length >= 1, 'the model was asked')
  t.match(await h.digests(project.id), [{ state: 'delivered', written_by: 'mechanical' }])
  t.match(h.posts(project.hook)[0], /^Daily digest for Shop, 2026-06-10: 1 update since the last digest\.\n\n• `TypeError: cart is undefined`: the cause was found in your code; 4 users affected\./)
})
