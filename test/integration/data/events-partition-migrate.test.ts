import t from 'tap'
import { randomUUID } from 'node:crypto'
import { createDb } from '../../../shared/db/index.js'
import { migrate, readMigrations } from '../../../shared/db/migrate.js'
import { seedEvents, seedProjectIssue } from '../../helpers/events-seed.js'
import { createTestDatabase } from '../../helpers/stack.js'

const ROWS = 1_000_000

t.test('088 partitions a million-row events table while events keep arriving: every row there once, the old table a partition', async (t) => {
  const db = createDb(await createTestDatabase(t), { max: 4 })
  t.teardown(() => db.close())
  await migrate(db, readMigrations().filter((m) => m.version < 88))
  const where = await seedProjectIssue(db, 'Large')
  await seedEvents(db, where, ROWS, 60)

  // Events keep arriving as the grouper would write them, before, during and after the migration.
  const written: string[] = []
  let writing = true
  const writer = (async () => {
    while (writing) {
      const ids = Array.from({ length: 50 }, () => randomUUID())
      await db.query(
        `INSERT INTO events (id, project_id, issue_id, occurred_at, received_at, "grouping", payload)
         SELECT id, $2, $3, now(), now(), '{}', '{}' FROM unnest($1::uuid[]) id`,
        [ids, where.projectId, where.issueId],
      )
      written.push(...ids)
      // A steady trickle (a few thousand events a second), not a flood competing for the machine.
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  })()
  while (written.length < 500) await new Promise((resolve) => setTimeout(resolve, 10))
  const result = await migrate(db)
  t.same(result.applied.map((m) => m.version).filter((v) => v >= 88).slice(0, 1), [88], '088 applied')
  const atCutover = written.length
  while (written.length < atCutover + 500) await new Promise((resolve) => setTimeout(resolve, 10))
  writing = false
  await writer

  const { rows: kinds } = await db.query<{ relname: string; relkind: string; partition: boolean }>(
    `SELECT relname, relkind, relispartition AS partition FROM pg_class WHERE relname IN ('events', 'events_legacy') ORDER BY relname`,
  )
  t.same(kinds, [{ relname: 'events', relkind: 'p', partition: false }, { relname: 'events_legacy', relkind: 'r', partition: true }], 'events is partitioned and the old table is its legacy partition')
  const { rows: legacyIndex } = await db.query<{ def: string }>(`SELECT pg_get_indexdef(indexrelid) AS def FROM pg_index WHERE indrelid = 'events_legacy'::regclass AND indisprimary`)
  t.match(legacyIndex[0]!.def, /UNIQUE INDEX events_legacy_pkey .*\(id, received_at\)/, 'its primary key is (id, received_at), the index built concurrently beforehand')

  const { rows: counts } = await db.query<{ total: number; distinct_ids: number }>('SELECT count(*)::int AS total, count(DISTINCT id)::int AS distinct_ids FROM events')
  t.same(counts[0], { total: ROWS + written.length, distinct_ids: ROWS + written.length }, `every row once: the million and the ${written.length} written meanwhile`)
  const { rows: missing } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM unnest($1::uuid[]) id WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.id = id)', [written])
  t.equal(missing[0]!.n, 0, 'none of the events written during the migration is lost')
})

t.test('088 on a small events table (under the before step\'s 100,000 rows) attaches it in the migration itself', async (t) => {
  const db = createDb(await createTestDatabase(t), { max: 2 })
  t.teardown(() => db.close())
  await migrate(db, readMigrations().filter((m) => m.version < 88))
  const where = await seedProjectIssue(db, 'Small')
  await seedEvents(db, where, 1000, 30)
  await migrate(db)
  const { rows } = await db.query<{ relispartition: boolean; n: number }>(`SELECT relispartition, (SELECT count(DISTINCT id)::int FROM events) AS n FROM pg_class WHERE relname = 'events_legacy'`)
  t.same(rows, [{ relispartition: true, n: 1000 }], 'the old table is the legacy partition, every row there once')
  const { rows: leftovers } = await db.query(`SELECT 1 FROM pg_class WHERE relname = 'events_cutover'`)
  t.equal(leftovers.length, 0, 'nothing of the before step is left')
})
