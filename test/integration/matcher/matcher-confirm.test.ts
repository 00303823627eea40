/**
 * Confirmation checks on real PostgreSQL with pgvector and the fs object store: recordings seeded
 * with rrweb chunks as the recorder leaves them, a known problem made by the real scan and
 * matching, then batches of checks judged from the scan's findings and the detectors' clicks.
 */
import t, { type Test } from 'tap'
import { confirmTicket, type ConfirmDeps } from '../../../services/matcher/confirm/index.js'
import { axis, HAND_MADE_MODEL } from '../../helpers/investigation/matching-fixtures.js'
import { matchFinding, type Embedder } from '../../../services/matcher/match/index.js'
import { scanRecording } from '../../../services/matcher/scan-due.js'
import { MATCHER_ENTITIES } from '../../../services/matcher/store/entities.js'
import { createObjectStore } from '../../../shared/object-store.js'
import { createOrm } from '../../../shared/db/orm.js'
import { capturedLog } from '../../helpers/browser/recording-chunks.js'
import { addAlert, click, pageLoad, seedRecording, type RrwebEvent } from '../../helpers/browser/recording-fixture.js'
import { startTestStack } from '../../helpers/stack.js'

const T0 = Date.parse('2026-11-20T09:00:00.000Z')
const PAY = 'button#pay.primary.big "Pay now"'
const DAY_1 = new Date('2026-11-21T10:00:00.000Z')
const DAY_2 = new Date('2026-11-22T00:30:00.000Z')

/** Every finding's subject reads alike (its control decides which known problem it joins): one hand-made vector for all. */
const embedder: Embedder = { model: HAND_MADE_MODEL, embed: async (texts) => texts.map(() => axis(0)) }

type Shape = 'friction' | 'fine' | 'quiet' | 'late' | 'elsewhere'

/**
 * A visit at start: friction clicks the pay button and nothing answers; fine clicks it and an
 * alert appears; quiet never clicks it; late clicks it as the recording ends (not judged);
 * elsewhere is on another page. Each ends with a click on the heading a few seconds later.
 */
function visit(shape: Shape, start: number): Map<number, RrwebEvent[]> {
  const load = pageLoad(start, shape === 'elsewhere' ? 'https://shop.example.com/home' : 'https://shop.example.com/checkout', { heading: 'Checkout', paragraph: 'Total: 42.00 EUR', button: 'Pay now' })
  const heading = load.bodyId + 1
  const events: RrwebEvent[] = [...load.events]
  if (shape === 'friction' || shape === 'fine' || shape === 'elsewhere') events.push(click(start + 1000, load.buttonId))
  if (shape === 'fine') events.push(addAlert(start + 1200, load.bodyId, 500, 'Payment received'))
  events.push(click(start + 4000, heading))
  if (shape === 'late') events.push(click(start + 4500, load.buttonId))
  return new Map([[0, events]])
}

async function confirmStack(t: Test) {
  const stack = await startTestStack(t, { ingress: false })
  const objects = await createObjectStore(stack.config.objectStore)
  const orm = await createOrm(stack.db, MATCHER_ENTITIES)
  t.teardown(() => orm.close())
  const { log } = capturedLog()
  let n = 0
  /** A recording of shape by user, closed unless open is set, scanned first when scanned is set. */
  const record = async (shape: Shape, user: string, options: { scanned?: boolean; open?: boolean } = {}): Promise<string> => {
    const id = await seedRecording(stack.db, objects, { projectId: stack.projectId, user: { id: user }, chunks: visit(shape, T0 + n++ * 60_000), closed: !options.open })
    if (options.scanned) await scanRecording({ db: stack.db, objects, log }, stack.projectId, id)
    return id
  }
  /** A known problem (a dead pay button, on /checkout or with elsewhere on /home) matched from one recording per user. */
  const ticketOf = async (users: string[], shape: 'friction' | 'elsewhere' = 'friction'): Promise<string> => {
    let ticketId = ''
    for (const user of users) {
      const id = await record(shape, user)
      const scan = await scanRecording({ db: stack.db, objects, log }, stack.projectId, id)
      if (scan.status !== 'scanned' || scan.findings.length !== 1) throw new Error(`expected one finding, got ${JSON.stringify(scan)}`)
      const decision = await matchFinding({ orm }, scan.findings[0]!, embedder)
      ticketId = decision!.ticket!.id
    }
    return ticketId
  }
  const deps = (o: { now?: Date; dailyBudget?: number } = {}): ConfirmDeps => ({ db: stack.db, objects, log, now: () => o.now ?? DAY_1, dailyBudget: o.dailyBudget })
  const ticket = async (id: string) => (await stack.db.query('SELECT * FROM tickets WHERE id = $1', [id])).rows[0]!
  /** The recordings matched to the ticket: its evidence. */
  const matchedOf = async (id: string) => (await stack.db.query<{ recording_id: string }>('SELECT DISTINCT recording_id FROM ticket_matches WHERE ticket_id = $1', [id])).rows.map((row) => row.recording_id)
  const checks = async (id: string) => (await stack.db.query<{ recording_id: string; verdict: string; utc_day: string }>("SELECT recording_id, verdict, to_char(utc_day, 'YYYY-MM-DD') AS utc_day FROM ticket_checks WHERE ticket_id = $1 ORDER BY checked_at, recording_id", [id])).rows
  return { stack, objects, record, ticketOf, deps, ticket, matchedOf, checks }
}

t.test('a ticket with 3 matches gets a batch: its own and the friction recordings confirm, a fine click refutes, the rest are inconclusive; the gate publishes it', async (t) => {
  const s = await confirmStack(t)
  const ticketId = await s.ticketOf(['ann', 'bob', 'cy'])
  t.match(await s.ticket(ticketId), { kind: 'dead_click', target: PAY, page: '/checkout', matched: 3, users: 3, checks_next_at: 3, state: 'candidate', published_at: null })
  const expected = new Map<string, string>((await s.matchedOf(ticketId)).map((id) => [id, 'confirmed']))
  t.equal(expected.size, 3, 'three matched recordings')
  for (const [shape, verdict, scanned] of [['friction', 'confirmed', true], ['friction', 'confirmed', false], ['friction', 'confirmed', false], ['fine', 'refuted', false], ['fine', 'refuted', true], ['quiet', 'inconclusive', false], ['late', 'inconclusive', true]] as const) {
    expected.set(await s.record(shape, `user-${expected.size}`, { scanned }), verdict)
  }
  const elsewhere = await s.record('elsewhere', 'dee')
  const open = await s.record('friction', 'eve', { open: true })

  const outcome = await confirmTicket(s.deps(), ticketId)
  t.match(outcome, { status: 'checked', checksNextAt: 13, dueAgain: false, resumeAt: undefined, budget: { utcDay: '2026-11-21', used: 10, limit: 2000 } })
  t.same(new Map(outcome.checks.map((check) => [check.recordingId, check.verdict])), expected, "each closed recording of the screen judged as it shows, the ticket's own matched ones included")
  t.notOk(outcome.checks.some((check) => check.recordingId === elsewhere), 'a recording of another screen is not checked')
  t.notOk(outcome.checks.some((check) => check.recordingId === open), 'a recording still open is not checked')
  t.equal(outcome.matchJobs.length, 2, 'the two friction recordings the scan had not read were scanned, their findings queued for matching')
  const stored = await s.checks(ticketId)
  t.same(new Map(stored.map((row) => [row.recording_id, row.verdict])), expected, 'one ticket_checks row each')
  t.ok(stored.every((row) => row.utc_day === '2026-11-21'), "each on the clock's UTC day")
  t.match(await s.ticket(ticketId), { checks_confirmed: 6, checks_refuted: 2, checks_inconclusive: 2, checks_next_at: 13, state: 'awaiting_approval', published_at: DAY_1, unpublished_at: null })
  t.match(outcome.gate, { action: 'publish', published: true, state: 'awaiting_approval', share: 6 / 8 })

  t.match(await confirmTicket(s.deps(), ticketId), { status: 'not_due', checks: [] }, 'the next batch waits for 13 matches')
  await s.stack.db.query('UPDATE tickets SET matched = 13 WHERE id = $1', [ticketId])
  const again = await confirmTicket(s.deps(), ticketId)
  t.match(again, { status: 'no_recordings', checks: [], checksNextAt: 13, dueAgain: false }, 'nothing to check yet: every closed recording of the screen is checked, so the batch waits and checks_next_at stays')
  t.equal((await s.checks(ticketId)).length, 10, 'no recording is checked twice')

  await s.stack.db.query('UPDATE recordings SET closed_at = last_at WHERE id = $1', [open])
  const closed = await confirmTicket(s.deps(), ticketId)
  t.match(closed, { status: 'checked', checks: [{ recordingId: open, verdict: 'confirmed' }], checksNextAt: 23 }, 'once the open recording closes, the waiting batch checks it and moves on')
  t.equal(closed.checks.length, 1, 'only the new one')
  t.match(await s.ticket(ticketId), { checks_confirmed: 7, checks_refuted: 2, checks_inconclusive: 2 })
})

t.test('in a quiet system, where every friction recording is matched, the matched recordings alone confirm and publish the ticket', async (t) => {
  const s = await confirmStack(t)
  const ticketId = await s.ticketOf(['ann', 'bob', 'ann'])
  t.match(await s.ticket(ticketId), { matched: 3, users: 2 })
  const outcome = await confirmTicket(s.deps(), ticketId)
  t.match(outcome, { status: 'checked', checksNextAt: 13, matchJobs: [], gate: { action: 'publish', published: true, state: 'awaiting_approval', share: 1 } })
  t.same(outcome.checks.map((check) => check.recordingId).sort(), (await s.matchedOf(ticketId)).sort(), 'the batch is its three matched recordings')
  t.ok(outcome.checks.every((check) => check.verdict === 'confirmed'), 'each confirmed by its own finding')
  t.match(await s.ticket(ticketId), { checks_confirmed: 3, checks_refuted: 0, checks_inconclusive: 0, state: 'awaiting_approval', published_at: DAY_1 }, '3 confirmed from 2 users publish it')
})

t.test('the gate waits for 3 confirmed checks, then publishes', async (t) => {
  const s = await confirmStack(t)
  const ticketId = await s.ticketOf(['ann', 'bob', 'cy'])
  const matched = await s.matchedOf(ticketId)
  await s.record('friction', 'u1')
  await s.record('friction', 'u2')
  await s.record('fine', 'u3')
  for (let i = 0; i < 7; i++) await s.record('quiet', `q${i}`)
  const first = await confirmTicket(s.deps(), ticketId)
  t.match(first, { status: 'checked', checksNextAt: 13, gate: { action: 'none', published: false, state: 'candidate' } })
  t.equal(first.checks.length, 10, 'a batch of 10, most recently active first')
  t.notOk(first.checks.some((check) => matched.includes(check.recordingId)), 'the older matched recordings wait for the next batch')
  t.match(await s.ticket(ticketId), { checks_confirmed: 2, checks_refuted: 1, checks_inconclusive: 7, published_at: null, state: 'candidate' }, 'two confirmed checks are not enough, whatever their share')

  await s.stack.db.query('UPDATE tickets SET matched = 13 WHERE id = $1', [ticketId])
  const second = await confirmTicket(s.deps(), ticketId)
  t.match(second, { status: 'checked', checksNextAt: 23, gate: { action: 'publish', state: 'awaiting_approval' } })
  t.same(second.checks.map((check) => check.recordingId).sort(), [...matched].sort(), 'the next batch reaches the matched recordings')
  t.ok(second.checks.every((check) => check.verdict === 'confirmed'))
  t.match(await s.ticket(ticketId), { checks_confirmed: 5, checks_refuted: 1, state: 'awaiting_approval', published_at: DAY_1 }, 'with 3 or more confirmed checks it publishes (5 of 6 conclusive checks)')
})

t.test('the daily budget stops a batch at its cap and the rest is checked the next UTC day', async (t) => {
  const s = await confirmStack(t)
  const ticketId = await s.ticketOf(['ann', 'bob', 'cy'])
  const matched = await s.matchedOf(ticketId)
  const later = [await s.record('friction', 'later-0'), await s.record('friction', 'later-1')]

  const first = await confirmTicket(s.deps({ dailyBudget: 3 }), ticketId)
  t.match(first, { status: 'budget_exhausted', resumeAt: new Date('2026-11-22T00:00:00.000Z'), budget: { used: 3, limit: 3 }, checksNextAt: 3 })
  t.equal(first.checks.length, 3, 'three checks, then the cap')
  t.match(await s.ticket(ticketId), { checks_confirmed: 3, checks_next_at: 3 }, 'the batch is not over: checks_next_at stays')

  const sameDay = await confirmTicket(s.deps({ dailyBudget: 3, now: new Date('2026-11-21T23:59:59.000Z') }), ticketId)
  t.match(sameDay, { status: 'budget_exhausted', checks: [] }, 'later the same UTC day nothing more is checked')

  const nextDay = await confirmTicket(s.deps({ dailyBudget: 3, now: DAY_2 }), ticketId)
  t.match(nextDay, { status: 'checked', checksNextAt: 13, budget: { utcDay: '2026-11-22', used: 2 } })
  t.equal(nextDay.checks.length, 2, 'the next UTC day the other two are checked')
  const stored = await s.checks(ticketId)
  t.same(stored.map((row) => row.utc_day), ['2026-11-21', '2026-11-21', '2026-11-21', '2026-11-22', '2026-11-22'])
  t.same(stored.map((row) => row.recording_id).sort(), [...later, ...matched].sort(), 'the five recordings of the screen, its matched ones included, none twice')
  t.match(await s.ticket(ticketId), { checks_confirmed: 5, checks_next_at: 13 })
})

t.test('the budget is per project: another ticket of the project finds the day spent', async (t) => {
  const s = await confirmStack(t)
  const one = await s.ticketOf(['ann', 'bob', 'cy'])
  const other = await s.ticketOf(['dan', 'eve', 'fay'], 'elsewhere')
  t.not(other, one, 'two known problems of the project (its button on another screen)')
  await s.record('friction', 'u1')
  await s.record('friction', 'u2')
  t.match(await confirmTicket(s.deps({ dailyBudget: 2 }), one), { status: 'budget_exhausted', checks: [{}, {}], budget: { used: 2 } }, "the first problem's batch spends the day's two checks")
  t.match(await confirmTicket(s.deps({ dailyBudget: 2 }), other), { status: 'budget_exhausted', checks: [], budget: { used: 2, limit: 2 } }, 'the day is spent for the whole project')
  t.equal((await s.checks(other)).length, 0)
  await t.rejects(confirmTicket(s.deps({ dailyBudget: -1 }), one), RangeError, 'a negative budget is refused')
})
