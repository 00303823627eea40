/**
 * Matching decisions against a real PostgreSQL with pgvector: findings inserted as the scan leaves
 * them, with hand-made 384-dimension unit vectors, so every distance is known in advance.
 */
import t, { type Test } from 'tap'
import { createDb, type Db } from '../../shared/db.js'
import { migrate } from '../../shared/migrate.js'
import { createOrm, type Orm } from '../../shared/orm.js'
import { chooseTicket, MAX_JOIN_DISTANCE, matchFinding, MatchError, withPage, type Embedder } from '../../services/matcher/match/index.js'
import { addFinding, addProject, atDistance, axis, blend, cosineDistance, HAND_MADE_MODEL } from '../../services/matcher/match/fixtures.js'
import { MATCHER_ENTITIES } from '../../services/matcher/store/entities.js'
import { createTestDatabase } from '../helpers/stack.js'

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

t.test('the rule: within 0.25 (inclusive), a ticket of the same screen first, then the nearest', async (t) => {
  t.equal(MAX_JOIN_DISTANCE, 0.25)
  const entry = (ticketId: string, distance: number | null, sharesScreen = false, checksConfirmed = 0) => ({ ticketId, distance, sharesScreen, checksConfirmed })
  t.equal(chooseTicket([]), undefined, 'nothing to join: create')
  t.equal(chooseTicket([entry('a', 0.2500001), entry('b', null, true)]), undefined, 'beyond the floor, or without a distance, nothing is joined')
  t.equal(chooseTicket([entry('a', 0.25)])?.ticketId, 'a', 'exactly 0.25 joins')
  t.equal(chooseTicket([entry('near', 0.05), entry('screen', 0.24, true)])?.ticketId, 'screen', 'one on the same screen beats a nearer one elsewhere')
  t.equal(chooseTicket([entry('far', 0.2), entry('near', 0.1)])?.ticketId, 'near', 'else the nearest')
  t.equal(chooseTicket([entry('b', 0.1, false, 1), entry('a', 0.1, false, 3)])?.ticketId, 'a', 'a tie goes to more confirmed checks')
  t.same(withPage(['/a', '/b'], '/b'), ['/a', '/b'], 'a screen seen again is not added twice')
  const full = Array.from({ length: 20 }, (_, i) => `/p${i}`)
  t.same(withPage(full, '/new'), ['/p0', ...full.slice(2), '/new'], 'at 20 screens the first stays and the oldest after it goes')
})

t.test('a first finding opens a ticket and its friction-kind issue; a near one joins it; a far one opens another', async (t) => {
  const s = await setUp(t)
  const embedder = handMade({ first: axis(0), near: atDistance(0, 1, 0.1), far: atDistance(0, 2, 0.3) })
  const first = await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, narrative: 'first', page: '/checkout', userKey: 'ann' })
  const created = await matchFinding({ orm: s.orm }, first, embedder)
  t.match(created, { decision: 'created', decidedBy: 'embeddings', distance: null, shortlist: [], alreadyDecided: false, ticket: { state: 'candidate', matched: 1, users: 1, checksNextAt: 3 } })
  const ticketId = created!.ticket!.id
  const ticket = await one(s.db, 'SELECT * FROM tickets WHERE id = $1', [ticketId])
  t.match(ticket, { project_id: s.projectId, environment_id: s.production, kind: 'dead_click', page: '/checkout', narrative: 'first', embedding_model: HAND_MADE_MODEL, pages: ['/checkout'], matched: 1, users: 1, version: 1 })
  const issue = await one(s.db, 'SELECT i.*, p.grouping_version AS project_version FROM issues i JOIN projects p ON p.id = i.project_id WHERE i.id = $1', [ticket.issue_id])
  t.match(issue, { kind: 'friction', fingerprint: `ticket:${ticketId}`, status: 'candidate', title: 'first', culprit: 'button#pay "Pay now" on /checkout', user_count: 1 })
  t.equal(issue.grouping_version, issue.project_version, "the issue's grouping version is the project's, as the grouper fills it")
  const finding = await one(s.db, 'SELECT embedding::text AS embedding, embedding_model FROM friction_findings WHERE id = $1', [first])
  t.equal(finding.embedding_model, HAND_MADE_MODEL, 'the narrative was embedded and kept with its model')
  t.match(String(finding.embedding), /^\[1,0,0,/)
  t.equal(await count(s.db, 'ticket_matches WHERE ticket_id = $1 AND finding_id = $2', [ticketId, first]), 1, 'the finding is the ticket\'s first evidence')
  t.equal(await count(s.db, 'issue_recordings WHERE issue_id = $1', [ticket.issue_id]), 1, 'and its recording is the issue\'s')
  t.match((await s.db.query('SELECT * FROM matching_decisions WHERE finding_id = $1', [first])).rows[0], { decision: 'created', ticket_id: ticketId, decided_by: 'embeddings', distance: null })

  const near = await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, narrative: 'near', page: '/cart', userKey: 'bob' })
  const joined = await matchFinding({ orm: s.orm }, near, embedder)
  t.match(joined, { decision: 'joined', ticket: { id: ticketId, matched: 2, users: 2 } })
  t.ok(Math.abs(joined!.distance! - 0.1) < 1e-4, `joined at distance 0.1 (${joined!.distance})`)
  t.match(joined!.shortlist, [{ ticketId, sharesScreen: false }], 'the ticket came through the nearest half: it was never seen on /cart')
  t.match((await s.db.query('SELECT * FROM tickets WHERE id = $1', [ticketId])).rows[0], { matched: 2, users: 2, pages: ['/checkout', '/cart'], version: 2 })
  t.match((await s.db.query('SELECT user_count FROM issues WHERE id = $1', [ticket.issue_id])).rows[0], { user_count: 2 })
  t.equal(await count(s.db, 'issue_recordings WHERE issue_id = $1', [ticket.issue_id]), 2)

  const far = await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, narrative: 'far', page: '/checkout' })
  const another = await matchFinding({ orm: s.orm }, far, embedder)
  t.match(another, { decision: 'created', distance: null })
  t.not(another!.ticket!.id, ticketId, 'at distance 0.3 it is another problem, on the same screen or not')
  t.ok(Math.abs(another!.shortlist[0]!.distance! - 0.3) < 1e-4, 'the shortlist keeps the distance that kept it apart')
  t.equal(await count(s.db, "issues WHERE kind = 'friction'"), 2)
})

t.test('a ticket of the finding\'s screen is joined before a nearer one elsewhere; on a new screen the nearest is', async (t) => {
  const s = await setUp(t)
  // cart and checkout are 0.5 apart (two problems); between is 0.2 from cart and 0.08 from checkout.
  const vectors = { cart: axis(0), checkout: blend({ 0: 0.5, 1: Math.sqrt(0.75) }), between: blend({ 0: 0.8, 1: 0.6 }), elsewhere: blend({ 0: 0.8, 1: 0.6 }) }
  t.ok(Math.abs(cosineDistance(vectors.between, vectors.checkout) - 0.0804) < 1e-3)
  const embedder = handMade(vectors)
  const decide = async (narrative: string, page: string) => matchFinding({ orm: s.orm }, await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, narrative, page }), embedder)
  const cart = (await decide('cart', '/cart'))!.ticket!.id
  const checkout = await decide('checkout', '/checkout')
  t.equal(checkout!.decision, 'created', 'at 0.5 the second is a problem of its own')
  const onCart = await decide('between', '/cart')
  t.match(onCart, { decision: 'joined', ticket: { id: cart } }, 'seen on /cart: the /cart ticket at 0.2, not the nearer /checkout one at 0.08')
  t.ok(Math.abs(onCart!.distance! - 0.2) < 1e-4)
  const onHome = await decide('elsewhere', '/home')
  t.match(onHome, { decision: 'joined', ticket: { id: checkout!.ticket!.id } }, 'seen on /home, which no ticket shares: the nearest')
  t.match((await s.db.query('SELECT pages FROM tickets WHERE id = $1', [checkout!.ticket!.id])).rows[0], { pages: ['/checkout', '/home'] }, 'and /home is now one of its screens')
})

t.test('without embeddings every finding opens a ticket of its own; a stored vector is still used', async (t) => {
  const s = await setUp(t)
  const a = await matchFinding({ orm: s.orm }, await addFinding(s.db, { projectId: s.projectId, environmentId: s.production }), undefined)
  const b = await matchFinding({ orm: s.orm }, await addFinding(s.db, { projectId: s.projectId, environmentId: s.production }), undefined)
  t.match(a, { decision: 'created', decidedBy: 'no_embeddings', distance: null })
  t.match(b, { decision: 'created', decidedBy: 'no_embeddings' })
  t.not(a!.ticket!.id, b!.ticket!.id, 'the same narrative on the same screen is still a new known problem')
  t.match(b!.shortlist, [{ ticketId: a!.ticket!.id, sharesScreen: true, distance: null }], 'the screen half was weighed, without distances')
  t.equal(await count(s.db, 'tickets WHERE embedding IS NULL AND embedding_model IS NULL'), 2)
  t.equal(await count(s.db, "issues WHERE kind = 'friction' AND status = 'candidate'"), 2)

  const stored = await matchFinding({ orm: s.orm }, await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, embedding: axis(3) }), undefined)
  const again = await matchFinding({ orm: s.orm }, await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, embedding: atDistance(3, 4, 0.05) }), undefined)
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
  const id = await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, narrative: 'once' })
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
  const id = await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, narrative: 'short' })
  await t.rejects(matchFinding({ orm: s.orm }, id, handMade({ short: [1, 0, 0] })), { name: 'MatchError', code: 'embedding_malformed', message: /3 dimensions; check the embeddings plugin of model test:hand-made: it must answer one vector of 384/ })
  await t.rejects(matchFinding({ orm: s.orm }, id, handMade({ short: axis(0).map(() => 0) })), MatchError)
  t.equal(await count(s.db, 'matching_decisions'), 0)
  t.equal(await count(s.db, 'friction_findings WHERE embedding IS NOT NULL'), 0)
})

t.test("another environment's, an archived, another kind's or another model's ticket is never joined", async (t) => {
  const s = await setUp(t)
  const embedder = handMade({ same: axis(0) })
  const staging = await matchFinding({ orm: s.orm }, await addFinding(s.db, { projectId: s.projectId, environmentId: s.staging, narrative: 'same' }), embedder)
  const rage = await matchFinding({ orm: s.orm }, await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, narrative: 'same', kind: 'rage_click' }), embedder)
  const archived = await matchFinding({ orm: s.orm }, await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, narrative: 'same', page: '/other' }), embedder)
  await s.db.query("UPDATE tickets SET state = 'archived', previous_state = state WHERE id = $1", [archived!.ticket!.id])
  const otherModel = await matchFinding({ orm: s.orm }, await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, narrative: 'same' }), embedder)
  await s.db.query("UPDATE tickets SET embedding_model = 'other:model' WHERE id = $1", [otherModel!.ticket!.id])
  t.equal(otherModel!.decision, 'created', 'not the archived ticket, nor the rage click, nor staging\'s')
  t.same(otherModel!.shortlist, [], 'none of them was even shortlisted')

  const last = await matchFinding({ orm: s.orm }, await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, narrative: 'same' }), embedder)
  t.equal(last!.decision, 'created', 'a vector of another model is never compared')
  t.match(last!.shortlist, [{ ticketId: otherModel!.ticket!.id, sharesScreen: true, distance: null }], 'its ticket is shortlisted for the screen only')
  const shortlisted = last!.shortlist.map((entry) => entry.ticketId)
  for (const other of [staging, rage, archived]) t.notOk(shortlisted.includes(other!.ticket!.id))
  t.equal(await count(s.db, 'tickets'), 5)
})
