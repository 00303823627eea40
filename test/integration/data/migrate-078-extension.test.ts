import { randomBytes } from 'node:crypto'
import t from 'tap'
import pg from 'pg'
import { createDb } from '../../../shared/db/index.js'
import { migrate, MigrateError, readMigrations } from '../../../shared/db/migrate.js'
import { runSvc } from '../../helpers/investigation/friction-seed.js'
import { TEST_DATABASE_URL } from '../../helpers/env.js'
import { startPostgresWithout } from '../../helpers/pg-without-extension.js'

async function versions(db: { query(sql: string): Promise<{ rows: Array<{ version: number }> }> }): Promise<number[]> {
  return (await db.query('SELECT version FROM schema_migrations ORDER BY version')).rows.map((r) => r.version)
}

async function hasTable(db: { query(sql: string, values: unknown[]): Promise<{ rows: Array<{ found: boolean }> }> }, name: string): Promise<boolean> {
  return (await db.query('SELECT to_regclass($1) IS NOT NULL AS found', [name])).rows[0]!.found
}

t.test('a server without pgvector stops the migration before 078 with the package to install for its major version', async (t) => {
  const url = await startPostgresWithout(t, 'vector')
  const db = createDb(url, { max: 1 })
  t.teardown(() => db.close())
  const { rows } = await db.query<{ vector: boolean; plpgsql: boolean; major: number }>(
    `SELECT bool_or(name = 'vector') AS vector, bool_or(name = 'plpgsql') AS plpgsql, current_setting('server_version_num')::int / 10000 AS major FROM pg_available_extensions`,
  )
  t.same({ vector: rows[0]!.vector, plpgsql: rows[0]!.plpgsql }, { vector: false, plpgsql: true }, 'the server lacks only pgvector')
  const major = rows[0]!.major

  const error = await migrate(db).then(() => undefined, (e: unknown) => e)
  t.type(error, MigrateError)
  t.equal((error as MigrateError).code, 'extension_unavailable')
  t.match((error as MigrateError).message, `Migration 078_known_problems.sql needs the PostgreSQL extension "vector", which this database server (PostgreSQL ${major}) does not have. Install pgvector for PostgreSQL ${major} on the database server (the postgresql-${major}-pgvector package on Debian and Ubuntu`)
  t.match((error as MigrateError).message, /let the migration role create it, then run the migrate step again\. Nothing was changed/)
  t.same(await versions(db), readMigrations().filter((m) => m.version < 78).map((m) => m.version), 'everything before 078 applied, 078 not')
  t.notOk(await hasTable(db, 'friction_scans'), 'no table of 078 half-made')

  const cli = runSvc(['migrate'], { DATABASE_URL: url })
  t.equal(cli.status, 1, 'svc migrate exits 1')
  t.match(cli.stderr, `svc migrate: Migration 078_known_problems.sql needs the PostgreSQL extension "vector"`)
})

t.test('a migration role that may not create the extension is told to have a superuser create it, and migrates once one has', async (t) => {
  const role = `svc_migrator_${randomBytes(4).toString('hex')}`
  const name = `svc_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await admin.connect()
  t.teardown(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.query(`DROP ROLE IF EXISTS ${role}`)
    await admin.end()
  })
  await admin.query(`CREATE ROLE ${role} LOGIN NOSUPERUSER`)
  await admin.query(`CREATE DATABASE ${name} OWNER ${role}`)
  const url = new URL(TEST_DATABASE_URL)
  url.pathname = `/${name}`
  const asSuperuser = url.toString()
  url.username = role
  url.password = ''
  const db = createDb(url.toString(), { max: 1 })
  t.teardown(() => db.close())

  const error = await migrate(db).then(() => undefined, (e: unknown) => e)
  t.type(error, MigrateError)
  t.equal((error as MigrateError).code, 'extension_not_permitted')
  t.match((error as MigrateError).message, `Migration 078_known_problems.sql could not create the PostgreSQL extension "vector": the migration role "${role}" is not allowed to`)
  t.match((error as MigrateError).message, `Create it once as a superuser (psql -d ${name} -c 'CREATE EXTENSION IF NOT EXISTS vector;') or give the role that right`)
  t.notMatch((error as MigrateError).message, /postgres:\/\//, 'no connection string (and so no password) in the message')
  t.equal(Math.max(...(await versions(db))), 10, 'the ledger stops before 078')
  t.notOk(await hasTable(db, 'friction_jobs'), '078 rolled back whole')

  // The fix the message names: a superuser creates the extension; the role then migrates.
  const superuser = new pg.Client({ connectionString: asSuperuser })
  await superuser.connect()
  await superuser.query('CREATE EXTENSION IF NOT EXISTS vector')
  await superuser.end()
  const result = await migrate(db)
  t.same(result.applied.map((m) => m.version), readMigrations().filter((m) => m.version >= 78).map((m) => m.version), '078 and every migration after it')
  t.ok(await hasTable(db, 'friction_jobs'))
})
