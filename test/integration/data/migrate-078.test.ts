import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createDb, type Db } from '../../../shared/db/index.js'
import { migrate, MigrateError, MIGRATIONS_DIR, readMigrations } from '../../../shared/db/migrate.js'
import { applySeed, SEED_PROJECT_ID } from '../../../shared/db/seed.js'
import { runSvc, seedEnvironment, seedRecording, seedScan } from '../../helpers/investigation/friction-seed.js'
import { createTestDatabase } from '../../helpers/stack.js'

const BEFORE_078 = readMigrations().filter((m) => m.version <= 10)

async function freshDb(t: { teardown(fn: () => unknown): void }): Promise<{ url: string; db: Db }> {
  const url = await createTestDatabase(t)
  const db = createDb(url, { max: 1 })
  t.teardown(() => db.close())
  return { url, db }
}

/** A finding a worker of this release wrote. */
async function writeFinding(db: Db): Promise<void> {
  await applySeed(db)
  const env = await seedEnvironment(db, SEED_PROJECT_ID, 'production')
  const recording = await seedRecording(db, SEED_PROJECT_ID, env, 30)
  await seedScan(db, SEED_PROJECT_ID, env, recording, ['Pay button does nothing'])
}

async function ledger(db: Db): Promise<number[]> {
  return (await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows.map((r) => r.version)
}

t.test('once workers wrote findings, migrating with code below 078 is refused: only fix-forward', async (t) => {
  const { db } = await freshDb(t)
  await migrate(db)
  await writeFinding(db)
  const before = await ledger(db)
  const error = await migrate(db, BEFORE_078).then(() => undefined, (e: unknown) => e)
  t.type(error, MigrateError)
  t.equal((error as MigrateError).code, 'rollback_unsupported')
  t.match((error as MigrateError).message, /^This database holds migrations? 78(, \d+)*, which this release does not know \(it knows up to 10\), and workers have written friction findings\./)
  t.match((error as MigrateError).message, 'Rollback below migration 078 after workers wrote findings is unsupported: only fix-forward is.')
  t.same(await ledger(db), before, 'nothing was changed')
})

t.test('without findings, older code may still run against a database migrated past 078', async (t) => {
  const { db } = await freshDb(t)
  await migrate(db)
  const result = await migrate(db, BEFORE_078)
  t.same(result.applied, [], 'nothing to apply, and no refusal')
})

t.test('a newer release\'s database with findings refuses this release\'s migrate step, also through svc migrate', async (t) => {
  const { url, db } = await freshDb(t)
  const dir = mkdtempSync(join(tmpdir(), 'svc-mig-newer-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  cpSync(MIGRATIONS_DIR, dir, { recursive: true })
  writeFileSync(join(dir, '990_next_release.sql'), 'ALTER TABLE friction_jobs ADD COLUMN next_release boolean;')
  await migrate(db, readMigrations(dir))
  await writeFinding(db)

  const error = await migrate(db).then(() => undefined, (e: unknown) => e)
  t.equal((error as MigrateError).code, 'rollback_unsupported')
  t.match((error as MigrateError).message, /holds migration 990, which this release does not know \(it knows up to \d+\)/)
  const cli = runSvc(['migrate'], { DATABASE_URL: url })
  t.equal(cli.status, 1)
  t.match(cli.stderr, /svc migrate: This database holds migration 990.*only fix-forward is\. Run the release that migrated this database, or a later one with the fix; nothing was changed\./)
  t.equal((await ledger(db)).at(-1), 990, 'the ledger keeps the newer release\'s migration')
  t.same((await migrate(db, readMigrations(dir))).applied, [], 'the newer release itself still runs')
})

t.test('a pre-078 database upgrades in two steps: 010, then 078 on top', async (t) => {
  const { db } = await freshDb(t)
  const first = await migrate(db, BEFORE_078)
  t.equal(first.current, 10)
  const rest = await migrate(db)
  t.equal(rest.applied[0]?.version, 78, '078 is the first applied on top of 010')
  const { rows } = await db.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE (table_name = 'friction_jobs' AND column_name = 'allow_missing_embeddings') OR (table_name = 'issues' AND column_name = 'previous_status') ORDER BY column_name`,
  )
  t.same(rows.map((r) => r.column_name), ['allow_missing_embeddings', 'previous_status'])
})
