import t from 'tap'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createDb } from '../../shared/db/index.js'
import { migrate } from '../../shared/db/migrate.js'
import { DAY } from '../../shared/time.js'
import { runRetentionPass } from '../../services/grouper/retention/pass.js'
import { createWeeks, getPartitions } from '../../services/grouper/retention/partitions.js'
import { seedEvents, seedProjectIssue } from '../helpers/events-seed.js'
import { createTestDatabase } from '../helpers/stack.js'

t.setTimeout(3 * 60_000)

const CHILD = fileURLToPath(new URL('./retention-pass-child.ts', import.meta.url))

t.test('a retention pass killed with -9 midway leaves whole rows and whole partitions, and the next pass finishes the work', async (t) => {
  const url = await createTestDatabase(t)
  const db = createDb(url, { max: 4 })
  t.teardown(() => db.close())
  await migrate(db)
  const now = Date.now()
  await createWeeks(db, await getPartitions(db), now - 125 * DAY, now)
  const short = await seedProjectIssue(db, 'Kept a week', 7)
  const usual = await seedProjectIssue(db, 'Kept the default')
  await seedEvents(db, short, 300_000, 120)
  await seedEvents(db, usual, 30_000, 120)
  // Expired as of now: the passes below run at now too, so a row crossing 7 days meanwhile does not count.
  const expiredOf = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND received_at < $2', [short.projectId, new Date(now - 7 * DAY)])).rows[0]!.n
  const initial = await expiredOf()

  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, url], { stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)))
  // Killed once its batched deletes have begun: the weeks past 90 days are gone by then, and rows of the week-kept project are going.
  let expired = initial
  while ((expired = await expiredOf()) === initial || expired > initial * 0.6) {
    if (child.exitCode !== null) break
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  child.kill('SIGKILL')
  t.equal(await exited, 'SIGKILL', 'the pass was killed, not finished')
  const left = await expiredOf()
  t.ok(left > 0 && left < initial, `killed midway: ${initial - left} of ${initial} expired rows deleted, ${left} left`)

  const { rows: loose } = await db.query<{ relname: string }>(`SELECT relname FROM pg_class WHERE relname LIKE 'events_w%' AND relkind = 'r' AND NOT relispartition`)
  t.same(loose, [], 'no week is left half-dropped: every events_w table is still a partition, or gone')
  const { rows: whole } = await db.query<{ n: number; whole: number }>(
    `SELECT count(*)::int AS n, count(*) FILTER (WHERE payload->'error'->>'type' = 'TypeError' AND "grouping"->>'version' = '4')::int AS whole FROM events`,
  )
  t.equal(whole[0]!.whole, whole[0]!.n, 'every remaining row is whole')

  // The killed session's advisory lock went with its connection: the next pass takes it and finishes.
  const next = await runRetentionPass(db, { retentionDays: 90 }, now)
  t.ok(next.ran, 'the next pass runs')
  t.equal(await expiredOf(), 0, 'and deletes the rest of the week-kept project\'s expired rows')
  const last = await runRetentionPass(db, { retentionDays: 90 }, now)
  t.equal(last.rowsDeleted, 0, 'a pass after it has nothing left to delete')
})
