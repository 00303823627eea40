// The workers' upkeep sweep (docs/storage.md): old ended digests with their items, setup sessions
// long past their expiry and old dead letters go; new ones, and digests still at work, stay. And
// the per-project storage gauges a worker's /metrics serves from its background count.
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { removeOldDigests } from '../../../services/digester/commands.js'
import { removeExpiredSetupSessions } from '../../../services/web/commands/setup-sessions.js'
import { startWorker } from '../../../services/worker/index.js'
import { countStorage } from '../../../services/worker/storage-gauges.js'
import { upkeepSweeper } from '../../../services/worker/upkeep.js'
import { dataConfig } from '../../../shared/config/data.js'
import { createLogger } from '../../../shared/log.js'
import { createObjectStore } from '../../../shared/object-store.js'
import { groupKeys, listDeadLetters } from '../../../shared/streams/index.js'
import { DAY } from '../../../shared/time.js'
import { seedStorage } from '../../helpers/events-seed.js'
import { scrape } from '../../helpers/metrics.js'
import { SEED_PROJECT_ID } from '../../../shared/db/seed.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'

const data = dataConfig({})

async function digest(stack: TestStack, daysAgo: number, state: string): Promise<string> {
  const { rows } = await stack.db.query<{ id: string }>(
    `INSERT INTO digests (project_id, local_date, timezone, due_at, not_before, state)
     VALUES ($1, (now() - make_interval(days => $2))::date, 'UTC', now() - make_interval(days => $2), now() - make_interval(days => $2), $3) RETURNING id`,
    [SEED_PROJECT_ID, daysAgo, state],
  )
  const id = rows[0]!.id
  await stack.db.query(
    `INSERT INTO digest_items (digest_id, position, subject, issue_id, title, outcome, users, completed_at, mechanical)
     VALUES ($1, 1, 'issue', gen_random_uuid(), 'TypeError', 'cause_found', 1, now(), 'text')`,
    [id],
  )
  return id
}

async function setupSession(stack: TestStack, expiredDaysAgo: number): Promise<string> {
  const id = `ss_${randomBytes(6).toString('hex')}`
  await stack.db.query(
    `INSERT INTO setup_sessions (id, token_hash, seal_public_key, project_name, agent_name, expires_at) VALUES ($1, '\\x00', '\\x00', 'Shop', 'agent', now() - make_interval(days => $2))`,
    [id, expiredDaysAgo],
  )
  await stack.db.query(`INSERT INTO setup_steps (session_id, step, status) VALUES ($1, 'install_sdk', 'pending')`, [id])
  return id
}

const ids = async (stack: TestStack, sql: string): Promise<string[]> => (await stack.db.query<{ id: string }>(sql)).rows.map((row) => row.id).sort()

t.test('the upkeep sweep removes only the old: ended digests past 90 days with their items, sessions 7 days past expiry, dead letters past 30 days', async (t) => {
  const stack = await startTestStack(t)
  const keep = [await digest(stack, 10, 'delivered'), await digest(stack, 200, 'queued'), await digest(stack, 201, 'running'), await digest(stack, 89, 'undelivered')]
  const old = [await digest(stack, 91, 'delivered'), await digest(stack, 120, 'undelivered'), await digest(stack, 300, 'empty'), await digest(stack, 400, 'kept')]
  const liveSessions = [await setupSession(stack, -1), await setupSession(stack, 6)]
  const oldSessions = [await setupSession(stack, 8), await setupSession(stack, 40)]
  const dead = groupKeys(stack.keys.events, 'grouper').dead
  const now = Date.now()
  await stack.redis.xadd(dead, `${now - 40 * DAY}-0`, 'n', '1', '__error', 'old')
  await stack.redis.xadd(dead, `${now - 31 * DAY}-0`, 'n', '1', '__error', 'old')
  const recent = await stack.redis.xadd(dead, `${now - 29 * DAY}-0`, 'n', '1', '__error', 'recent')
  const fresh = await stack.redis.xadd(groupKeys(stack.keys.digests, 'digester').dead, '*', 'digest', 'x', '__error', 'fresh')

  await upkeepSweeper({ db: stack.db, redis: stack.redis, keys: stack.keys, data }).sweepNow()

  t.same(await ids(stack, 'SELECT id FROM digests'), keep.sort(), 'old ended digests went; recent ones and those still at work stayed')
  t.same(await ids(stack, 'SELECT DISTINCT digest_id AS id FROM digest_items'), keep.sort(), 'their items went with them')
  t.same(await ids(stack, 'SELECT id FROM setup_sessions'), liveSessions.sort(), 'sessions 7 days past expiry went; live and recently expired stayed')
  t.same(await ids(stack, 'SELECT DISTINCT session_id AS id FROM setup_steps'), liveSessions.sort(), 'their steps went with them')
  t.same((await listDeadLetters(stack.redis, stack.keys.events, 'grouper', 10)).map((d) => d.id), [recent], 'dead letters past 30 days went')
  t.same((await listDeadLetters(stack.redis, stack.keys.digests, 'digester', 10)).map((d) => d.id), [fresh], 'a fresh one of another group stayed')
  t.equal(old.length + oldSessions.length, 6, 'six old rows were seeded, and none is left (above)')
})

t.test('each pass is bounded: a backlog goes over several passes, oldest first', async (t) => {
  const stack = await startTestStack(t)
  await digest(stack, 500, 'delivered')
  await digest(stack, 400, 'delivered')
  const newest = await digest(stack, 300, 'delivered')
  t.equal(await removeOldDigests(stack.db, data.digestsKeepMs, 2), 2)
  t.same(await ids(stack, 'SELECT id FROM digests'), [newest], 'the two oldest went first')
  t.equal(await removeOldDigests(stack.db, data.digestsKeepMs, 2), 1)
  t.equal(await removeOldDigests(stack.db, data.digestsKeepMs, 2), 0)
  await setupSession(stack, 30)
  await setupSession(stack, 20)
  t.equal(await removeExpiredSetupSessions(stack.db, data.setupSessionsKeepMs, 1), 1)
  t.equal(await removeExpiredSetupSessions(stack.db, data.setupSessionsKeepMs, 1), 1)
  t.equal(await removeExpiredSetupSessions(stack.db, data.setupSessionsKeepMs, 1), 0)
})

t.test("a worker's /metrics serves each project's storage figures, counted in the background", async (t) => {
  const stack = await startTestStack(t)
  await seedStorage(stack, SEED_PROJECT_ID)
  const log = createLogger('silent')
  const worker = await startWorker({ db: stack.db, objects: await createObjectStore(stack.config.objectStore, log), redis: stack.redis, keys: stack.keys, log, services: [], timing: stack.config.stream, healthPort: 0, healthHost: '127.0.0.1' })
  t.teardown(() => worker.stop())
  // The worker counts at start; counting again here makes the scrape's figures certain, not timed.
  await countStorage({ db: stack.db, redis: stack.redis, keys: stack.keys })
  const metrics = await scrape(`http://127.0.0.1:${worker.healthPort}/metrics`)
  const project = { project: SEED_PROJECT_ID }
  t.equal(metrics.value('svc_project_events_stored', project), 3)
  t.equal(metrics.value('svc_project_recordings_bytes', project), 2048)
  t.equal(metrics.value('svc_project_intake_refused_day', project), 4)
  t.equal(metrics.value('svc_project_intake_sampled_day', project), 9)
  const age = metrics.value('svc_project_oldest_event_age_seconds', project)
  t.ok(age >= 3 * 3600 - 60 && age < 4 * 3600, `the oldest event is about 3 hours old (${age} s)`)
})
