/**
 * The publish gate on real PostgreSQL with pgvector: known problems made by matching from findings
 * with hand-made vectors, their check counters set as batches would leave them, and the gate's
 * publish, unpublish and same-fix question read back from the tickets. The verdict and gate rules
 * are tested at their edges first, without a database.
 */
import t, { type Test } from 'tap'
import { gateAction, publishGate, verdictOf, type CheckedTicket } from '../../../services/matcher/confirm/index.js'
import type { Observations } from '../../../services/matcher/friction/observe.js'
import { screenOf } from '../../../services/matcher/friction/control.js'
import { addFinding, addProject, atDistance, axis, namesOfTarget } from '../../helpers/investigation/matching-fixtures.js'
import { matchFinding } from '../../../services/matcher/match/index.js'
import { MATCHER_ENTITIES } from '../../../services/matcher/store/entities.js'
import { createDb } from '../../../shared/db/index.js'
import { migrate } from '../../../shared/db/migrate.js'
import { createOrm } from '../../../shared/db/orm.js'
import { createTestDatabase } from '../../helpers/stack.js'

const NOW = new Date('2026-11-21T10:00:00.000Z')
const PAY = 'button#pay "Pay now"'

t.test('the gate rule: 3 confirmed, 2 users and 40% of conclusive checks publish; below 25% after 10 checks unpublishes', async (t) => {
  const counts = (confirmed: number, refuted: number, inconclusive = 0, users = 2, published = false) => ({ confirmed, refuted, inconclusive, users, published })
  t.equal(gateAction(counts(2, 0)), 'none', 'two confirmed checks are not enough')
  t.equal(gateAction(counts(3, 0, 0, 1)), 'none', 'one user is not enough')
  t.equal(gateAction(counts(3, 5)), 'none', '37.5% is not enough')
  t.equal(gateAction(counts(2 + 1, 4)), 'publish', '3 of 7 (42.9%) publishes')
  t.equal(gateAction(counts(4, 6, 20)), 'publish', 'exactly 40%, inconclusive checks left out of the share')
  t.equal(gateAction(counts(2, 7, 0, 2, true)), 'none', 'below 25% but only 9 checks: it stays published')
  t.equal(gateAction(counts(2, 7, 1, 2, true)), 'unpublish', 'below 25% with 10 checks: unpublished')
  t.equal(gateAction(counts(1, 3, 6, 2, true)), 'none', 'exactly 25% stays')
  t.equal(gateAction(counts(3, 6, 5, 2, true)), 'none', 'between 25% and 40% a published problem stays published')
})

t.test('a verdict: the friction of its control confirms, a judged click on the control without it refutes, anything else is inconclusive', async (t) => {
  const ticket: CheckedTicket = { kind: 'dead_click', screen: '/checkout', controlNames: namesOfTarget(PAY), subject: `${PAY} on /checkout` }
  const finding = (kind: 'dead_click' | 'rage_click' | 'error_after_click', target = PAY, page = '/checkout', distance: number | null = null, subject = `${target} on ${screenOf(page)}`) => ({ kind, page, target, screen: screenOf(page), names: namesOfTarget(target), subject, distance })
  const seen = (clicks: Array<{ at: number; page?: string; target?: string }>, end: number): Observations => ({
    clicks: clicks.map((c, order) => ({ at: c.at, order, page: c.page ?? '/checkout', snapshot: 1, target: { nodeId: 9, description: c.target ?? PAY, role: 'control', names: namesOfTarget(c.target ?? PAY) } })) as Observations['clicks'],
    answers: [],
    errors: [],
    end,
  })
  t.equal(verdictOf(ticket, [finding('dead_click', PAY, '/checkout?step=2')], undefined), 'confirmed', 'same kind, control and screen')
  t.equal(verdictOf(ticket, [finding('dead_click', 'button#pay.v2 "Pay"', '/checkout', 0.4)], undefined), 'confirmed', 'its control reworded in a release, at any distance')
  t.equal(verdictOf(ticket, [finding('dead_click', 'button#save-card "Save card"', '/checkout', 0.229)], seen([], 10)), 'inconclusive', "Save card beside it never confirms Pay's problem, however near")
  t.equal(verdictOf(ticket, [finding('dead_click', 'a "Help"', '/help', 0)], seen([], 10)), 'inconclusive', 'nor does any other control anywhere')
  t.equal(verdictOf(ticket, [], seen([{ at: 0 }], 1000)), 'refuted', 'the control clicked, a second recorded after it, no friction')
  t.equal(verdictOf(ticket, [], seen([{ at: 0, target: 'button#pay-button "Pay now"' }], 1000)), 'refuted', 'under a new id too')
  t.equal(verdictOf(ticket, [], seen([{ at: 0, target: 'button#save-card "Save card"' }], 5000)), 'inconclusive', 'another control clicked says nothing')
  t.equal(verdictOf(ticket, [], seen([{ at: 0 }], 999)), 'inconclusive', 'a click too near the end is not judged')
  t.equal(verdictOf(ticket, [], seen([{ at: 0, page: '/cart' }], 5000)), 'inconclusive', 'the control clicked on another screen')
  t.equal(verdictOf(ticket, [finding('rage_click')], seen([{ at: 0 }], 5000)), 'inconclusive', 'other friction on the control is not a refutation')
  t.equal(verdictOf({ ...ticket, kind: 'form_abandon' }, [], seen([{ at: 0 }], 5000)), 'inconclusive', 'no detector sees form abandonment going right')

  const error: CheckedTicket = { ...ticket, kind: 'error_after_click', subject: 'Payment provider answered 502' }
  const errorAfter = (distance: number | null, subject = 'Payment provider answered 502') => finding('error_after_click', PAY, '/checkout', distance, subject)
  t.equal(verdictOf(error, [errorAfter(0.1)], undefined), 'confirmed', 'an error of its control with a near message')
  t.equal(verdictOf(error, [errorAfter(0.3, 'Cannot read properties of undefined')], seen([], 10)), 'inconclusive', 'another error of its control is another problem')
  t.equal(verdictOf(error, [errorAfter(null)], undefined), 'confirmed', 'not embedded yet: the same message word for word')
  t.equal(verdictOf(error, [errorAfter(null, 'Payment provider answered 503')], seen([], 10)), 'inconclusive', 'and only then')
})

async function gateSetUp(t: Test) {
  const url = await createTestDatabase(t)
  const db = createDb(url, { max: 4 })
  t.teardown(() => db.close())
  await migrate(db)
  const orm = await createOrm(db, MATCHER_ENTITIES)
  t.teardown(() => orm.close())
  const { projectId, production } = await addProject(db)
  /** A known problem matched from one finding per user, all with this vector, on its own page. */
  const ticketOf = async (vector: number[], users: string[], page: string): Promise<string> => {
    let ticketId = ''
    for (const userKey of users) {
      const findingId = await addFinding(db, { projectId, environmentId: production, embedding: vector, userKey, page, narrative: `dead pay button on ${page}` })
      ticketId = (await matchFinding({ orm }, findingId, undefined))!.ticket!.id
    }
    return ticketId
  }
  const counters = (id: string, confirmed: number, refuted: number, inconclusive = 0) =>
    db.query('UPDATE tickets SET checks_confirmed = $2, checks_refuted = $3, checks_inconclusive = $4 WHERE id = $1', [id, confirmed, refuted, inconclusive])
  const ticket = async (id: string) => (await db.query('SELECT * FROM tickets WHERE id = $1', [id])).rows[0]!
  const gate = (id: string, at = NOW) => publishGate({ db, now: () => at }, id)
  return { db, ticketOf, counters, ticket, gate }
}

t.test('the gate publishes at its thresholds, not before, and unpublishes below 25% after 10 checks', async (t) => {
  const s = await gateSetUp(t)
  const lone = await s.ticketOf(axis(5), ['ann', 'ann', 'ann'], '/lone')
  await s.counters(lone, 5, 0)
  t.match(await s.gate(lone), { action: 'none', published: false, state: 'candidate' }, 'one user, however many checks, is not published')

  const id = await s.ticketOf(axis(0), ['ann', 'bob'], '/checkout')
  await s.counters(id, 3, 5)
  t.match(await s.gate(id), { action: 'none', published: false }, '37.5%: not yet')
  t.match(await s.ticket(id), { published_at: null, state: 'candidate' })
  await s.counters(id, 3, 4)
  t.match(await s.gate(id), { action: 'publish', published: true, state: 'awaiting_approval' })
  t.match(await s.ticket(id), { published_at: NOW, unpublished_at: null, state: 'awaiting_approval', same_fix: null })
  t.match(await s.gate(id), { action: 'none', published: true }, 'published once: the gate leaves it')

  const later = new Date('2026-11-23T08:00:00.000Z')
  await s.counters(id, 2, 7)
  t.match(await s.gate(id, later), { action: 'none', published: true }, '22% after 9 checks: still published')
  await s.counters(id, 2, 7, 1)
  t.match(await s.gate(id, later), { action: 'unpublish', published: false, state: 'candidate' })
  t.match(await s.ticket(id), { published_at: NOW, unpublished_at: later, state: 'candidate' }, 'unpublished, back to candidate, its first publication kept')

  await s.counters(id, 3, 4)
  t.match(await s.gate(id, later), { action: 'publish', state: 'awaiting_approval' }, 'borne out again: published again')
  t.match(await s.ticket(id), { published_at: later, unpublished_at: null })
  await s.db.query("UPDATE tickets SET state = 'analyzing' WHERE id = $1", [id])
  await s.counters(id, 2, 8)
  t.match(await s.gate(id, later), { action: 'unpublish', state: 'analyzing' }, 'one the investigator took keeps its state when unpublished')
  await s.db.query("UPDATE tickets SET state = 'archived' WHERE id = $1", [id])
  await s.counters(id, 9, 0)
  t.match(await s.gate(id, later), { action: 'none', published: false, state: 'archived' }, 'an archived problem is left as it is')
})

t.test('with embeddings, a published problem near another published one is asked about a shared fix, once', async (t) => {
  const s = await gateSetUp(t)
  const a = await s.ticketOf(axis(0), ['ann', 'bob'], '/checkout')
  const b = await s.ticketOf(atDistance(0, 1, 0.3), ['cy', 'dee'], '/cart')
  const c = await s.ticketOf(atDistance(0, 2, 0.5), ['eve', 'fay'], '/help')
  const d = await s.ticketOf(atDistance(0, 3, 0.32), ['gus', 'hal'], '/account')
  t.equal(new Set([a, b, c, d]).size, 4, 'four known problems')
  for (const id of [a, b, c, d]) await s.counters(id, 3, 0)

  t.match(await s.gate(a), { action: 'publish', askedSameFix: undefined }, 'the first published has nothing near to ask about')
  t.match(await s.gate(b), { action: 'publish', askedSameFix: { ticketId: a } }, 'the next, 0.3 from it, is asked')
  t.match(await s.ticket(b), { same_fix_ticket_id: a, same_fix: 'asked' })
  t.match(await s.gate(c), { action: 'publish', askedSameFix: undefined }, '0.5 away is not asked')
  t.match(await s.ticket(c), { same_fix_ticket_id: null, same_fix: null })
  t.match(await s.gate(a), { askedSameFix: undefined }, 'the pair is asked once: not again from the other side')
  t.match(await s.ticket(a), { same_fix: null })
  await s.db.query("UPDATE tickets SET same_fix = 'different' WHERE id = $1", [b])
  t.match(await s.gate(b), { askedSameFix: undefined }, 'an answered question is not asked again')
  t.match(await s.gate(d), { action: 'publish', askedSameFix: { ticketId: a } }, 'the nearest published one is named')
  t.ok((await s.gate(d))!.askedSameFix === undefined, 'and only once')
})

t.test('without embeddings the gate publishes but never asks about a shared fix', async (t) => {
  const s = await gateSetUp(t)
  const a = await s.ticketOf(axis(0), ['ann', 'bob'], '/checkout')
  const b = await s.ticketOf(atDistance(0, 1, 0.3), ['cy', 'dee'], '/cart')
  await s.db.query('UPDATE tickets SET embedding = NULL, embedding_model = NULL')
  for (const id of [a, b]) await s.counters(id, 3, 0)
  t.match(await s.gate(a), { action: 'publish', askedSameFix: undefined })
  t.match(await s.gate(b), { action: 'publish', askedSameFix: undefined })
  t.equal((await s.db.query("SELECT 1 FROM tickets WHERE same_fix IS NOT NULL OR same_fix_ticket_id IS NOT NULL")).rowCount, 0, 'no question asked')
})
