/**
 * Matching decisions against a real PostgreSQL with pgvector: findings inserted as the scan leaves
 * them, with hand-made 384-dimension unit vectors, so every distance is known in advance.
 */
import t, { type Test } from 'tap'
import { createDb, type Db } from '../../../shared/db/index.js'
import { migrate } from '../../../shared/db/migrate.js'
import { createOrm, type Orm } from '../../../shared/db/orm.js'
import { chooseTicket, MAX_JOIN_DISTANCE, matchFinding, MatchError, withPage, type Embedder } from '../../../services/matcher/match/index.js'
import { addFinding, addProject, atDistance, axis, HAND_MADE_MODEL } from '../../helpers/investigation/matching-fixtures.js'
import { MATCHER_ENTITIES } from '../../../services/matcher/store/entities.js'
import { createTestDatabase } from '../../helpers/stack.js'

async function setUp(t: Test): Promise<{ db: Db; orm: Orm; projectId: string; production: string; staging: string }> {
  const url = await createTestDatabase(t)
  const db = createDb(url, { max: 4 })
  t.teardown(() => db.close())
  await migrate(db)
  const orm = await createOrm(db, MATCHER_ENTITIES)
  t.teardown(() => orm.close())
  return { db, orm, ...(await addProject(db)) }
}

/** An embedder that answers each narrative's hand-made vector and notes what it was asked. */
function handMade(vectors: Record<string, number[]>): Embedder & { asked: string[] } {
  const asked: string[] = []
  return {
    model: HAND_MADE_MODEL,
    asked,
    async embed(texts) {
      asked.push(...texts)
      return texts.map((text) => {
        const vector = vectors[text]
        if (!vector) throw new Error(`no hand-made vector for ${text}`)
        return vector
      })
    },
  }
}

/** The one row sql answers. */
async function one(db: Db, sql: string, params: unknown[] = []): Promise<Record<string, unknown>> {
  const { rows } = await db.query(sql, params)
  if (rows.length !== 1) throw new Error(`expected one row, got ${rows.length}: ${sql}`)
  return rows[0]!
}

async function count(db: Db, sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${sql}`, params)
  return Number(rows[0]!.n)
}

t.test('the rule: only a ticket of the same control; a click joins at any distance, an error within 0.25 (inclusive), the nearest first', async (t) => {
  t.equal(MAX_JOIN_DISTANCE, 0.25)
  const entry = (ticketId: string, distance: number | null, sameControl = true, checksConfirmed = 0, sameSubject = false) => ({ ticketId, distance, sharesScreen: true, sameControl, sameSubject, checksConfirmed })
  t.equal(chooseTicket('dead_click', []), undefined, 'nothing to join: create')
  t.equal(chooseTicket('dead_click', [entry('other', 0, false)]), undefined, "another control's ticket is never joined, at distance 0")
  t.equal(chooseTicket('rage_click', [entry('a', 0.9)])?.ticketId, 'a', "a click joins its control's ticket however far: the control is the problem")
  t.equal(chooseTicket('dead_click', [entry('a', null)])?.ticketId, 'a', 'without comparable vectors too')
  t.equal(chooseTicket('error_after_click', [entry('a', 0.2500001)]), undefined, 'an error beyond the floor is another error of the control')
  t.equal(chooseTicket('error_after_click', [entry('a', 0.25)])?.ticketId, 'a', 'exactly 0.25 joins')
  t.equal(chooseTicket('error_after_click', [entry('a', null)]), undefined, 'an error without a distance needs its message word for word')
  t.equal(chooseTicket('error_after_click', [entry('a', null, true, 0, true)])?.ticketId, 'a')
  t.equal(chooseTicket('dead_click', [entry('far', 0.2), entry('near', 0.1), entry('none', null)])?.ticketId, 'near', 'the nearest of its control, one without a distance last')
  t.equal(chooseTicket('dead_click', [entry('b', 0.1, true, 1), entry('a', 0.1, true, 3)])?.ticketId, 'a', 'a tie goes to more confirmed checks')
  t.same(withPage(['/a', '/b'], '/b'), ['/a', '/b'], 'a page seen again is not added twice')
  const full = Array.from({ length: 20 }, (_, i) => `/p${i}`)
  t.same(withPage(full, '/new'), ['/p0', ...full.slice(2), '/new'], 'at 20 pages the first stays and the oldest after it goes')
})

t.test('a first finding opens a ticket and its friction-kind issue; its control joins it; another control, however near, opens another', async (t) => {
  const s = await setUp(t)
  const embedder = handMade({ first: axis(0), again: atDistance(0, 1, 0.3), saveCard: atDistance(0, 2, 0.05) })
  const first = await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, subject: 'first', narrative: 'first', page: '/checkout', userKey: 'ann' })
  const created = await matchFinding({ orm: s.orm }, first, embedder)
  t.match(created, { decision: 'created', decidedBy: 'embeddings', distance: null, shortlist: [], alreadyDecided: false, ticket: { state: 'candidate', matched: 1, users: 1, checksNextAt: 3 } })
  const ticketId = created!.ticket!.id
  const ticket = await one(s.db, 'SELECT * FROM tickets WHERE id = $1', [ticketId])
  t.match(ticket, { project_id: s.projectId, environment_id: s.production, kind: 'dead_click', page: '/checkout', narrative: 'first', screen: '/checkout', control_names: ['button#pay', 'button "pay now"'], subject: 'first', embedding_model: HAND_MADE_MODEL, embedding_of: 'subject', pages: ['/checkout'], matched: 1, users: 1, version: 1 })
  const issue = await one(s.db, 'SELECT i.*, p.grouping_version AS project_version FROM issues i JOIN projects p ON p.id = i.project_id WHERE i.id = $1', [ticket.issue_id])
  t.match(issue, { kind: 'friction', fingerprint: `ticket:${ticketId}`, status: 'candidate', title: 'first', culprit: 'button#pay "Pay now" on /checkout', user_count: 1 })
  t.equal(issue.grouping_version, issue.project_version, "the issue's grouping version is the project's, as the grouper fills it")
  const finding = await one(s.db, 'SELECT embedding::text AS embedding, embedding_model, embedding_of FROM friction_findings WHERE id = $1', [first])
  t.match(finding, { embedding_model: HAND_MADE_MODEL, embedding_of: 'subject' }, 'the subject was embedded and kept with its model')
  t.match(String(finding.embedding), /^\[1,0,0,/)
  t.same(embedder.asked, ['first'], 'what was embedded is the subject')
  t.equal(await count(s.db, 'ticket_matches WHERE ticket_id = $1 AND finding_id = $2', [ticketId, first]), 1, 'the finding is the ticket\'s first evidence')
  t.equal(await count(s.db, 'issue_recordings WHERE issue_id = $1', [ticket.issue_id]), 1, 'and its recording is the issue\'s')
  t.match((await s.db.query('SELECT * FROM matching_decisions WHERE finding_id = $1', [first])).rows[0], { decision: 'created', ticket_id: ticketId, decided_by: 'embeddings', distance: null })

  // Pay reworded in a release (same id), seen with a query on the same screen.
  const again = await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, subject: 'again', narrative: 'again', page: '/checkout?step=2', target: 'button#pay.v2 "Pay"', userKey: 'bob' })
  const joined = await matchFinding({ orm: s.orm }, again, embedder)
  t.match(joined, { decision: 'joined', ticket: { id: ticketId, matched: 2, users: 2 } }, 'its control, by its id, at distance 0.3: a click joins at any distance')
  t.ok(Math.abs(joined!.distance! - 0.3) < 1e-4, `joined at distance 0.3 (${joined!.distance})`)
  t.match(joined!.shortlist, [{ ticketId, sharesScreen: true, sameControl: true }])
  t.match((await s.db.query('SELECT * FROM tickets WHERE id = $1', [ticketId])).rows[0], { matched: 2, users: 2, pages: ['/checkout', '/checkout?step=2'], control_names: ['button#pay', 'button "pay now"', 'button "pay"'], version: 2 }, 'and the words it goes by now are one of its names')
  t.match((await s.db.query('SELECT user_count FROM issues WHERE id = $1', [ticket.issue_id])).rows[0], { user_count: 2 })
  t.equal(await count(s.db, 'issue_recordings WHERE issue_id = $1', [ticket.issue_id]), 2)

  const saveCard = await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, subject: 'saveCard', narrative: 'saveCard', page: '/checkout', target: 'button#save-card "Save card"' })
  const another = await matchFinding({ orm: s.orm }, saveCard, embedder)
  t.match(another, { decision: 'created', distance: null })
  t.not(another!.ticket!.id, ticketId, "Save card beside Pay is another control: at distance 0.05 it still never joins Pay's ticket")
  t.match(another!.shortlist, [{ ticketId, sameControl: false, sharesScreen: true }], 'the shortlist keeps the near ticket it refused')
  t.ok(Math.abs(another!.shortlist[0]!.distance! - 0.05) < 1e-3)
  t.equal(await count(s.db, "issues WHERE kind = 'friction'"), 2)
})

t.test('a control is known by its screen, and across releases by its id or its words, not when both changed', async (t) => {
  const s = await setUp(t)
  const embedder = handMade({ pay: axis(0) })
  const decide = async (page: string, target: string) => matchFinding({ orm: s.orm }, await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, subject: 'pay', narrative: 'pay', page, target }), embedder)
  const pay = (await decide('/checkout', 'button#pay "Pay"'))!.ticket!.id
  t.match(await decide('/checkout', 'button#pay-button "Pay"'), { decision: 'joined', ticket: { id: pay } }, 'a new id, the same words')
  t.match(await decide('/checkout', 'button#pay-button "Pay now"'), { decision: 'joined', ticket: { id: pay } }, 'then new words, the id of the release before: followed step by step')
  t.match(await decide('/checkout', 'button#complete "Complete purchase"'), { decision: 'created' }, 'both changed at once: a new control')
  t.match(await decide('/cart', 'button#pay "Pay"'), { decision: 'created' }, 'the same button on another screen is another known problem')
  t.match(await decide('/checkout', 'a#pay "Pay"'), { decision: 'created' }, 'a link is not the button it replaced')
  t.match(await decide('/checkout/', 'button#pay "Pay"'), { decision: 'joined', ticket: { id: pay } }, 'a trailing slash is the same screen')
})

t.test('an error after a click joins its control\'s ticket when its message is near, and only then', async (t) => {
  const s = await setUp(t)
  const embedder = handMade({ 'Payment provider answered 502': axis(0), 'Payment provider answered 503': atDistance(0, 1, 0.02), "Cannot read properties of undefined (reading 'total')": atDistance(0, 2, 0.6) })
  const decide = async (subject: string, target = 'button#pay "Pay"') => matchFinding({ orm: s.orm }, await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, kind: 'error_after_click', subject, narrative: subject, target }), embedder)
  const provider = (await decide('Payment provider answered 502'))!.ticket!.id
  t.match(await decide('Payment provider answered 503'), { decision: 'joined', ticket: { id: provider } }, 'the same error, its number aside')
  t.match(await decide("Cannot read properties of undefined (reading 'total')"), { decision: 'created' }, 'another error of the same button is another problem')
  t.match(await decide('Payment provider answered 502', 'button#retry "Retry"'), { decision: 'created' }, 'the same error after another control is its own problem')
})

t.test('without embeddings every finding opens a ticket of its own; a stored vector is still used', async (t) => {
  const s = await setUp(t)
  const a = await matchFinding({ orm: s.orm }, await addFinding(s.db, { projectId: s.projectId, environmentId: s.production }), undefined)
  const b = await matchFinding({ orm: s.orm }, await addFinding(s.db, { projectId: s.projectId, environmentId: s.production }), undefined)
  t.match(a, { decision: 'created', decidedBy: 'no_embeddings', distance: null })
  t.match(b, { decision: 'created', decidedBy: 'no_embeddings' })
  t.not(a!.ticket!.id, b!.ticket!.id, 'the same narrative on the same screen is still a new known problem')
  t.match(b!.shortlist, [{ ticketId: a!.ticket!.id, sharesScreen: true, sameControl: true, distance: null }], "its control's ticket was weighed, without distances, and not joined")
  t.equal(await count(s.db, 'tickets WHERE embedding IS NULL AND embedding_model IS NULL'), 2)
  t.equal(await count(s.db, "issues WHERE kind = 'friction' AND status = 'candidate'"), 2)

  const later = 'button#later "Save for later"'
  const stored = await matchFinding({ orm: s.orm }, await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, target: later, embedding: axis(3) }), undefined)
  const again = await matchFinding({ orm: s.orm }, await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, target: later, embedding: atDistance(3, 4, 0.05) }), undefined)
  t.match(stored, { decision: 'created', decidedBy: 'embeddings' }, 'a finding embedded earlier is matched by its vector')
  t.match(again, { decision: 'joined', decidedBy: 'embeddings', ticket: { id: stored!.ticket!.id } })
})

t.test('an empty narrative is not a problem: no ticket, no issue, nothing embedded', async (t) => {
  const s = await setUp(t)
  const embedder = handMade({})
  const id = await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, narrative: ' \n\t' })
  t.match(await matchFinding({ orm: s.orm }, id, embedder), { decision: 'not_a_problem', ticket: null, distance: null, shortlist: [] })
  t.same(embedder.asked, [])
  t.equal(await count(s.db, 'tickets'), 0)
  t.equal(await count(s.db, "issues WHERE kind = 'friction'"), 0)
  t.match((await s.db.query('SELECT decision, ticket_id FROM matching_decisions WHERE finding_id = $1', [id])).rows, [{ decision: 'not_a_problem', ticket_id: null }])
})

t.test('a finding decided once is answered as decided: one decision, one match, one embedding', async (t) => {
  const s = await setUp(t)
  const embedder = handMade({ once: axis(7) })
  const id = await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, narrative: 'once', subject: 'once' })
  const first = await matchFinding({ orm: s.orm }, id, embedder)
  const second = await matchFinding({ orm: s.orm }, id, embedder)
  t.match(second, { decision: 'created', alreadyDecided: true, ticket: { id: first!.ticket!.id, matched: 1 } })
  t.same(embedder.asked, ['once'], 'embedded once')
  t.equal(await count(s.db, 'matching_decisions'), 1)
  t.equal(await count(s.db, 'ticket_matches'), 1)
  t.equal(await count(s.db, 'tickets'), 1)
  t.equal(await matchFinding({ orm: s.orm }, '00000000-0000-4000-8000-000000000000', embedder), undefined, 'a finding that is gone has nothing to decide')
})

t.test('a malformed vector is refused with a code saying what to fix, and nothing is written', async (t) => {
  const s = await setUp(t)
  const id = await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, narrative: 'short', subject: 'short' })
  await t.rejects(matchFinding({ orm: s.orm }, id, handMade({ short: [1, 0, 0] })), { name: 'MatchError', code: 'embedding_malformed', message: /3 dimensions; check the embeddings plugin of model test:hand-made: it must answer one vector of 384/ })
  await t.rejects(matchFinding({ orm: s.orm }, id, handMade({ short: axis(0).map(() => 0) })), MatchError)
  t.equal(await count(s.db, 'matching_decisions'), 0)
  t.equal(await count(s.db, 'friction_findings WHERE embedding IS NOT NULL'), 0)
})

t.test("another environment's, an archived or another kind's ticket is never joined; another model's is by its control alone", async (t) => {
  const s = await setUp(t)
  const embedder = handMade({ same: axis(0) })
  const add = (o: { environmentId?: string; kind?: 'rage_click' | 'error_after_click' } = {}) => addFinding(s.db, { projectId: s.projectId, environmentId: o.environmentId ?? s.production, kind: o.kind, narrative: 'same', subject: 'same' })
  const staging = await matchFinding({ orm: s.orm }, await add({ environmentId: s.staging }), embedder)
  const rage = await matchFinding({ orm: s.orm }, await add({ kind: 'rage_click' }), embedder)
  const archived = await matchFinding({ orm: s.orm }, await add(), embedder)
  await s.db.query("UPDATE tickets SET state = 'archived', previous_state = state WHERE id = $1", [archived!.ticket!.id])
  const otherModel = await matchFinding({ orm: s.orm }, await add(), embedder)
  t.equal(otherModel!.decision, 'created', 'not the archived ticket, nor the rage click, nor staging\'s')
  t.same(otherModel!.shortlist, [], 'none of them was even shortlisted')
  await s.db.query("UPDATE tickets SET embedding_model = 'other:model' WHERE id = $1", [otherModel!.ticket!.id])

  const last = await matchFinding({ orm: s.orm }, await add(), embedder)
  t.match(last, { decision: 'joined', ticket: { id: otherModel!.ticket!.id }, distance: null }, 'a vector of another model is never compared, and a dead click needs none: its control decides')
  t.match(last!.shortlist, [{ ticketId: otherModel!.ticket!.id, sameControl: true, distance: null }])
  const shortlisted = last!.shortlist.map((entry) => entry.ticketId)
  for (const other of [staging, rage, archived]) t.notOk(shortlisted.includes(other!.ticket!.id))

  const error = await matchFinding({ orm: s.orm }, await add({ kind: 'error_after_click' }), embedder)
  await s.db.query("UPDATE tickets SET embedding_model = 'other:model', subject = 'another message' WHERE id = $1", [error!.ticket!.id])
  t.match(await matchFinding({ orm: s.orm }, await add({ kind: 'error_after_click' }), embedder), { decision: 'created' }, 'an error without a distance joins only its message word for word')
  t.equal(await count(s.db, 'tickets'), 6)
})
