import t from 'tap'
import { createDb } from '../../../shared/db/index.js'
import { migrate } from '../../../shared/db/migrate.js'
import { DAY } from '../../../shared/time.js'
import { runRetentionPass, WEEKS_AHEAD } from '../../../services/grouper/retention/pass.js'
import { createWeeks, getPartitions, weekName, weekStart, WEEK } from '../../../services/grouper/retention/partitions.js'
import { seedEvents, seedProjectIssue } from '../../helpers/events-seed.js'
import { createTestDatabase } from '../../helpers/stack.js'

const now = Date.now()

async function migrated(t: { teardown(fn: () => unknown): void }) {
  const db = createDb(await createTestDatabase(t), { max: 4 })
  t.teardown(() => db.close())
  await migrate(db)
  // 120 days of history, as a deployment partitioned that long ago would hold.
  await createWeeks(db, await getPartitions(db), now - 125 * DAY, now)
  return db
}

async function oldestDays(db: Awaited<ReturnType<typeof migrated>>, projectId: string): Promise<number> {
  const { rows } = await db.query<{ oldest: Date }>('SELECT min(received_at) AS oldest FROM events WHERE project_id = $1', [projectId])
  return (now - rows[0]!.oldest.getTime()) / DAY
}

t.test('a pass drops the weeks every project is past, deletes a shorter-kept project\'s expired rows and keeps the issues\' counters', async (t) => {
  const db = await migrated(t)
  const short = await seedProjectIssue(db, 'Kept a week', 7)
  const usual = await seedProjectIssue(db, 'Kept the default')
  await seedEvents(db, short, 4800, 120, new Date(now))
  await seedEvents(db, usual, 4800, 120, new Date(now))
  await db.query(`INSERT INTO event_receipts (id, received_at) SELECT gen_random_uuid(), now() - (n + 0.5) * interval '1 day' FROM generate_series(0, 20) n`)
  const before = await db.query('SELECT id, event_count, user_count, first_seen, last_seen FROM issues ORDER BY id')

  const done = await runRetentionPass(db, { retentionDays: 90 }, now)
  t.ok(done.ran)
  t.ok(done.dropped.length >= 3, `the weeks wholly before 90 days are dropped (${done.dropped.join(', ')})`)
  t.ok(done.rowsDeleted > 3000, 'the week-kept project\'s rows are deleted row by row')
  t.ok((await oldestDays(db, short.projectId)) <= 7, 'nothing older than 7 days is left of the week-kept project')
  const usualOldest = await oldestDays(db, usual.projectId)
  t.ok(usualOldest <= 97 && usualOldest > 89, `the default project keeps 90 days, up to the week that straddles them (${usualOldest.toFixed(1)} days)`)
  const { rows: receipts } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM event_receipts WHERE received_at < now() - interval '7 days'`)
  t.equal(receipts[0]!.n, 0, 'receipts past the resend window are pruned')
  t.same((await db.query('SELECT id, event_count, user_count, first_seen, last_seen FROM issues ORDER BY id')).rows, before.rows, 'issues keep their counters and dates')

  const names = new Set((await getPartitions(db)).map((p) => p.name))
  for (let week = 0; week <= WEEKS_AHEAD; week++) t.ok(names.has(weekName(new Date(weekStart(now).getTime() + week * WEEK))), `week +${week} exists ahead`)

  const again = await runRetentionPass(db, { retentionDays: 90 }, now)
  t.same({ dropped: again.dropped, rows: again.rowsDeleted, created: again.created }, { dropped: [], rows: 0, created: [] }, 'a second pass finds nothing to do')
})

t.test('the longest retention decides which weeks go: a project kept 120 days keeps them, the others lose their rows', async (t) => {
  const db = await migrated(t)
  const long = await seedProjectIssue(db, 'Kept 120 days', 120)
  const usual = await seedProjectIssue(db, 'Kept the default')
  await seedEvents(db, long, 1200, 119, new Date(now))
  await seedEvents(db, usual, 1200, 119, new Date(now))
  const done = await runRetentionPass(db, { retentionDays: 90 }, now)
  t.same(done.dropped, [], 'no week is dropped')
  t.ok((await oldestDays(db, long.projectId)) > 118, 'the long-kept project keeps all')
  t.ok((await oldestDays(db, usual.projectId)) <= 90, 'the default project keeps 90 days exactly')
})

t.test('a pass finds another holding the lock and does nothing', async (t) => {
  const db = await migrated(t)
  const holder = await db.pool.connect()
  t.teardown(() => holder.release())
  await holder.query('SELECT pg_advisory_lock(7082032)')
  const done = await runRetentionPass(db, { retentionDays: 90 }, now)
  t.equal(done.ran, false)
  await holder.query('SELECT pg_advisory_unlock(7082032)')
})
