/**
 * The shortlist with 10,000 known problems on one screen of the environment: the nearest half goes
 * through the HNSW index (the plan says so), and the finding joins its own control's problem.
 */
import t from 'tap'
import type { EntityManager } from '@mikro-orm/postgresql'
import { createDb } from '../../../shared/db/index.js'
import { migrate } from '../../../shared/db/migrate.js'
import { createOrm } from '../../../shared/db/orm.js'
import { ITERATIVE_SCAN_SQL, matchFinding, shortlistStatements } from '../../../services/matcher/match/index.js'
import { addFinding, addProject, addRandomTickets, cosineDistance, HAND_MADE_MODEL } from '../../helpers/investigation/matching-fixtures.js'
import { MATCHER_ENTITIES } from '../../../services/matcher/store/entities.js'
import { createTestDatabase } from '../../helpers/stack.js'

t.test('with 10,000 tickets the nearest are found through the HNSW index, and the right one is joined', async (t) => {
  const url = await createTestDatabase(t)
  const db = createDb(url, { max: 4 })
  t.teardown(() => db.close())
  await migrate(db)
  const orm = await createOrm(db, MATCHER_ENTITIES)
  t.teardown(() => orm.close())
  const { projectId, production, staging } = await addProject(db)
  await addRandomTickets(db, { projectId, environmentId: production, count: 10_000 })
  t.equal(Number((await db.query('SELECT count(*) AS n FROM tickets WHERE environment_id = $1', [production])).rows[0]!.n), 10_000)

  const { rows: [target] } = await db.query<{ id: string; embedding: string; page: string; target: string }>('SELECT id, embedding::text AS embedding, page, target FROM tickets ORDER BY id OFFSET 4321 LIMIT 1')
  const seeded = JSON.parse(target!.embedding) as number[]
  // The seeded vector with a tenth of it moved along three axes: about 0.01 away, every other ticket about 1.
  const near = seeded.map((value, i) => value + (i < 3 ? 0.1 : 0))
  t.ok(cosineDistance(near, seeded) < 0.05)
  // A finding of the seeded ticket's control: its screen (all 10,000 share it) and its one name.
  const control = { page: target!.page, target: target!.target, names: [target!.target] }
  const query = { projectId, environmentId: production, kind: 'dead_click' as const, screen: '/seeded/:id', names: control.names, subject: 'near', embedding: near, embeddingModel: HAND_MADE_MODEL }
  const { nearest } = shortlistStatements(query)
  const plan = await (orm.em.fork() as EntityManager).transactional(async (tx) => {
    await tx.execute(ITERATIVE_SCAN_SQL)
    const rows = await tx.execute<Array<{ 'QUERY PLAN': string }>>(`EXPLAIN ${nearest!.sql}`, nearest!.params)
    return rows.map((row) => row['QUERY PLAN']).join('\n')
  })
  t.match(plan, /Index Scan using tickets_embedding on tickets/, `the nearest half walks the HNSW index:\n${plan.replace(/'\[[^\]]*\]'/g, "'[…]'")}`)

  const finding = await addFinding(db, { projectId, environmentId: production, embedding: near, ...control })
  const decision = await matchFinding({ orm }, finding, undefined)
  t.match(decision, { decision: 'joined', ticket: { id: target!.id, matched: 1 } }, 'its first evidence (seeded tickets have none)')
  t.equal(decision!.shortlist.length, 10, 'its control\'s one and the ten nearest, itself among them')
  t.match(decision!.shortlist[0], { ticketId: target!.id, sameControl: true }, 'the seeded one first')
  t.ok(decision!.shortlist.slice(1).every((entry) => entry.distance! > 0.5 && !entry.sameControl), 'the rest are other controls\' problems')

  const elsewhere = await addFinding(db, { projectId, environmentId: staging, embedding: near, ...control })
  const stagingDecision = await matchFinding({ orm }, elsewhere, undefined)
  t.match(stagingDecision, { decision: 'created', shortlist: [] }, "none of production's 10,000 is shortlisted for staging")
})
