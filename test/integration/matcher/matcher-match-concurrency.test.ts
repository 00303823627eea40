/**
 * Matchers racing in one environment, each on its own ORM and connection pool (as two workers are):
 * the environment's lock makes the second read the shortlist only after the first committed. A
 * third connection holds the lock until both matchers are waiting on it, so the race is certain,
 * not left to timing.
 */
import t, { type Test } from 'tap'
import { createDb, type Db } from '../../../shared/db/index.js'
import { migrate } from '../../../shared/db/migrate.js'
import { createOrm, type Orm } from '../../../shared/db/orm.js'
import { matchFinding, type Decision } from '../../../services/matcher/match/index.js'
import { addFinding, addProject, atDistance, axis } from '../../helpers/investigation/matching-fixtures.js'
import { MATCHER_ENTITIES } from '../../../services/matcher/store/entities.js'
import { createTestDatabase, waitFor } from '../../helpers/stack.js'

/** The environment's lock as docs/known-problems.md tells scripts to take it: the matcher must wait on it. */
const LOCK_BY_HAND = "SELECT pg_advisory_xact_lock(hashtext($1::text || coalesce($2::text, '')))"

async function setUp(t: Test): Promise<{ db: Db; orms: Orm[]; projectId: string; production: string; staging: string }> {
  const url = await createTestDatabase(t)
  const db = createDb(url, { max: 4 })
  t.teardown(() => db.close())
  await migrate(db)
  const orms: Orm[] = []
  for (let i = 0; i < 2; i++) {
    const orm = await createOrm(db, MATCHER_ENTITIES)
    t.teardown(() => orm.close())
    orms.push(orm)
  }
  return { db, orms, ...(await addProject(db)) }
}

/** Runs the matchers while a third connection holds the environment's lock, releasing it once all of them wait on it. */
async function raceUnderHeldLock(db: Db, projectId: string, environmentId: string, matchers: Array<() => Promise<Decision | undefined>>): Promise<Array<Decision | undefined>> {
  const holder = await db.pool.connect()
  try {
    await holder.query('BEGIN')
    await holder.query(LOCK_BY_HAND, [projectId, environmentId])
    const running = matchers.map((run) => run())
    await waitFor(async () => {
      const { rows } = await db.query<{ n: string }>("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")
      return Number(rows[0]!.n) === matchers.length || undefined
    }, 30_000)
    await holder.query('COMMIT')
    return await Promise.all(running)
  } finally {
    holder.release()
  }
}

t.test('two matchers deciding two near findings of one environment at once open exactly one ticket', async (t) => {
  const s = await setUp(t)
  const a = await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, embedding: axis(0), userKey: 'ann' })
  const b = await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, embedding: atDistance(0, 1, 0.1), userKey: 'bob' })
  const decisions = await raceUnderHeldLock(s.db, s.projectId, s.production, [() => matchFinding({ orm: s.orms[0]! }, a, undefined), () => matchFinding({ orm: s.orms[1]! }, b, undefined)])
  t.same(decisions.map((d) => d!.decision).sort(), ['created', 'joined'], 'one created it, the other joined it')
  t.equal(decisions[0]!.ticket!.id, decisions[1]!.ticket!.id)
  const { rows } = await s.db.query('SELECT matched, users, version FROM tickets')
  t.same(rows, [{ matched: 2, users: 2, version: 2 }], 'exactly one ticket, with both findings')
  const { rows: issues } = await s.db.query("SELECT count(*)::int AS n FROM issues WHERE kind = 'friction'")
  t.same(issues, [{ n: 1 }], 'and one issue')
})

t.test('two matchers deciding the same finding at once write one decision', async (t) => {
  const s = await setUp(t)
  const id = await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, embedding: axis(5) })
  const decisions = await raceUnderHeldLock(s.db, s.projectId, s.production, [() => matchFinding({ orm: s.orms[0]! }, id, undefined), () => matchFinding({ orm: s.orms[1]! }, id, undefined)])
  t.same(decisions.map((d) => d!.alreadyDecided).sort(), [false, true], 'the second found the first one\'s decision under the lock')
  t.equal(decisions[0]!.ticket!.id, decisions[1]!.ticket!.id)
  const { rows } = await s.db.query('SELECT (SELECT count(*)::int FROM matching_decisions) AS decisions, (SELECT count(*)::int FROM tickets) AS tickets, (SELECT count(*)::int FROM ticket_matches) AS matches')
  t.same(rows, [{ decisions: 1, tickets: 1, matches: 1 }])
})

t.test('matchers of two environments do not wait for each other', async (t) => {
  const s = await setUp(t)
  const staging = await addFinding(s.db, { projectId: s.projectId, environmentId: s.staging, embedding: axis(0) })
  const production = await addFinding(s.db, { projectId: s.projectId, environmentId: s.production, embedding: axis(0) })
  const holder = await s.db.pool.connect()
  try {
    await holder.query('BEGIN')
    await holder.query(LOCK_BY_HAND, [s.projectId, s.production])
    const decided = await matchFinding({ orm: s.orms[0]! }, staging, undefined)
    t.equal(decided!.decision, 'created', "staging's decision is taken while production's lock is held")
    const waiting = matchFinding({ orm: s.orms[1]! }, production, undefined)
    await holder.query('COMMIT')
    t.equal((await waiting)!.decision, 'created', "and production's does not join staging's ticket")
  } finally {
    holder.release()
  }
})
