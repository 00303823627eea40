import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { runRetentionPass } from '../../../services/grouper/retention/pass.js'
import { createWeeks, getPartitions } from '../../../services/grouper/retention/partitions.js'
import { createDb } from '../../../shared/db/index.js'
import { migrate } from '../../../shared/db/migrate.js'
import { startEmbeddedPostgres } from '../../../shared/embedded/index.js'
import { createLogger } from '../../../shared/log.js'
import { DAY } from '../../../shared/time.js'
import { seedEvents, seedProjectIssue } from '../../helpers/events-seed.js'

t.setTimeout(3 * 60_000)

t.test('on the embedded database (npm start), 088 partitions events and a retention pass drops, deletes and makes weeks', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-retention-pg-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const embedded = await startEmbeddedPostgres({ dataDir, log: createLogger('silent') })
  t.teardown(() => embedded.stop())
  const db = createDb(embedded.url, { ...embedded.pool })
  t.teardown(() => db.close())
  await migrate(db)
  const now = Date.now()
  await createWeeks(db, await getPartitions(db), now - 125 * DAY, now)
  const short = await seedProjectIssue(db, 'Kept a week', 7)
  const usual = await seedProjectIssue(db, 'Kept the default')
  await seedEvents(db, short, 2400, 120, new Date(now))
  await seedEvents(db, usual, 2400, 120, new Date(now))

  const done = await runRetentionPass(db, { retentionDays: 90 }, now)
  t.ok(done.ran && done.dropped.length >= 3 && done.rowsDeleted > 0, `weeks dropped (${done.dropped.length}) and rows deleted (${done.rowsDeleted})`)
  const { rows } = await db.query<{ project_id: string; oldest: Date }>('SELECT project_id, min(received_at) AS oldest FROM events GROUP BY project_id')
  const oldest = new Map(rows.map((row) => [row.project_id, (now - row.oldest.getTime()) / DAY]))
  t.ok(oldest.get(short.projectId)! <= 7, 'the week-kept project keeps 7 days')
  t.ok(oldest.get(usual.projectId)! <= 97, 'the default project keeps 90 days, up to a week more')
})
