import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createDb } from '../../../shared/db/index.js'
import { migrate, readMigrations } from '../../../shared/db/migrate.js'
import { createTestDatabase } from '../../helpers/stack.js'

t.test('migrations apply once, rerun as a no-op, and concurrent runs do not collide', async (t) => {
  const db = createDb(await createTestDatabase(t), { max: 4 })
  t.teardown(() => db.close())
  const [a, b] = await Promise.all([migrate(db), migrate(db)])
  const total = readMigrations().length
  t.equal(a.applied.length + b.applied.length, total, 'each migration applied exactly once across two concurrent runs')
  const again = await migrate(db)
  t.equal(again.applied.length, 0, 'a rerun applies nothing')
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations')
  t.equal(rows[0]!.n, total, 'the ledger lists each migration once')
  const tables = await db.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`)
  for (const table of ['projects', 'environments', 'api_keys', 'issues', 'events', 'issue_actors']) {
    t.ok(tables.rows.some((r) => r.table_name === table), `${table} exists`)
  }
})

t.test('a landed migration whose text changed stops the run', async (t) => {
  const db = createDb(await createTestDatabase(t), { max: 1 })
  t.teardown(() => db.close())
  const dir = mkdtempSync(join(tmpdir(), 'svc-mig-'))
  writeFileSync(join(dir, '001_one.sql'), 'CREATE TABLE one (id int);')
  await migrate(db, readMigrations(dir))
  writeFileSync(join(dir, '001_one.sql'), 'CREATE TABLE one (id bigint);')
  await t.rejects(migrate(db, readMigrations(dir)), /changed after it was applied/)
})

t.test('a failing migration leaves nothing half-applied', async (t) => {
  const db = createDb(await createTestDatabase(t), { max: 1 })
  t.teardown(() => db.close())
  const dir = mkdtempSync(join(tmpdir(), 'svc-mig-'))
  writeFileSync(join(dir, '001_ok.sql'), 'CREATE TABLE ok (id int);')
  writeFileSync(join(dir, '002_bad.sql'), 'CREATE TABLE half (id int); SELECT nonsense FROM nowhere;')
  await t.rejects(migrate(db, readMigrations(dir)), /002_bad\.sql failed/)
  const { rows } = await db.query<{ version: number }>('SELECT version FROM schema_migrations')
  t.same(rows.map((r) => r.version), [1])
  const half = await db.query(`SELECT 1 FROM information_schema.tables WHERE table_name = 'half'`)
  t.equal(half.rowCount, 0, 'the failed migration\'s table was rolled back')
})
