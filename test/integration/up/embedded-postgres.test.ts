import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { createDb } from '../../../shared/db/index.js'
import { migrate } from '../../../shared/db/migrate.js'
import { startEmbeddedPostgres } from '../../../shared/embedded/index.js'
import { createLogger } from '../../../shared/log.js'
import { childEnv } from '../../helpers/env.js'

const log = createLogger('silent')

// Nine PostgreSQL starts (initdb on the first of each folder) in one file: on a 2-core machine
// under the full suite's load they took past tap's 120 s for a file, though none was stuck.
t.setTimeout(5 * 60_000)

function tempDir(t: Test, prefix = 'svc-embedded-pg-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** The pid of a process that has already exited. */
function deadPid(): number {
  const { pid } = spawnSync(process.execPath, ['-e', ''])
  return pid!
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGKILL')
  })
}

t.test('a transaction with parameterised inserts is still there after a stop and a fresh start', async (t) => {
  const dataDir = tempDir(t)
  const first = await startEmbeddedPostgres({ dataDir, log })
  t.match(first.url, /^postgres:\/\/postgres@%2F[^/]+\/postgres$/, 'a socket-folder URL, no TCP host')
  const db = createDb(first.url, { max: 1 })
  await db.query('CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)')
  await db.withTransaction(async (client) => {
    await client.query('INSERT INTO notes (id, body) VALUES ($1, $2)', [1, 'one'])
    await client.query('INSERT INTO notes (id, body) VALUES ($1, $2)', [2, 'two'])
  })
  await db.close()
  await first.stop()
  t.notOk(existsSync(join(dataDir, 'pg', 'svc.lock')), 'stop releases the lock')

  const second = await startEmbeddedPostgres({ dataDir, log })
  t.teardown(() => second.stop())
  t.equal(second.url, first.url, 'the same URL on every start')
  const again = createDb(second.url, { max: 1 })
  t.teardown(() => again.close())
  const { rows } = await again.query<{ id: number; body: string }>('SELECT id, body FROM notes WHERE id = ANY($1) ORDER BY id', [[1, 2]])
  t.same(rows, [
    { id: 1, body: 'one' },
    { id: 2, body: 'two' },
  ])
})

t.test('the vector extension can be created and answers a cosine-distance query', async (t) => {
  const pg = await startEmbeddedPostgres({ dataDir: tempDir(t), log })
  t.teardown(() => pg.stop())
  const db = createDb(pg.url, { max: 1 })
  t.teardown(() => db.close())
  await db.query('CREATE EXTENSION IF NOT EXISTS vector')
  await db.query('CREATE TABLE items (name text, embedding vector(3))')
  await db.query(`INSERT INTO items VALUES ('x', '[1,0,0]'), ('y', '[0,1,0]'), ('xy', '[1,1,0]')`)
  const { rows } = await db.query<{ name: string; distance: number }>('SELECT name, embedding <=> $1::vector AS distance FROM items ORDER BY distance LIMIT 2', ['[1,0.1,0]'])
  t.same(rows.map((r) => r.name), ['x', 'xy'])
  t.ok(rows[0]!.distance < 0.01, 'a near-identical direction is close to 0')
})

t.test('every migration applies on the embedded database, with pg_trgm for the issue search', async (t) => {
  const pg = await startEmbeddedPostgres({ dataDir: tempDir(t), log })
  t.teardown(() => pg.stop())
  const db = createDb(pg.url, { max: 1 })
  t.teardown(() => db.close())
  await migrate(db)
  const { rows } = await db.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE tablename = 'issues' AND indexname = 'issues_search_trgm'`)
  t.equal(rows.length, 1, 'the trigram index exists')
  const { rows: plan } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT id FROM issues WHERE title || ' ' || culprit ILIKE '%cannot read%'`)
  t.ok(plan.length > 0, 'a search plans on it')
})

t.test('a second start on a folder in use is refused with the lock message', async (t) => {
  const dataDir = tempDir(t)
  const pg = await startEmbeddedPostgres({ dataDir, log })
  t.teardown(() => pg.stop())
  await t.rejects(startEmbeddedPostgres({ dataDir, log }), {
    name: 'DirLockedError',
    message: new RegExp(`^Another svc process \\(pid ${process.pid}\\) holds ${join(dataDir, 'pg')}\\. Stop it, or set DATABASE_URL`),
  })

  // The first instance is unharmed by the refused one.
  const db = createDb(pg.url, { max: 1 })
  t.teardown(() => db.close())
  const { rows } = await db.query<{ one: number }>('SELECT 1 AS one')
  t.same(rows, [{ one: 1 }])
})

t.test('a lock held by another live process is refused, naming that pid', async (t) => {
  const dataDir = tempDir(t)
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' })
  t.teardown(() => stopChild(holder))
  mkdirSync(join(dataDir, 'pg'), { recursive: true })
  writeFileSync(join(dataDir, 'pg', 'svc.lock'), `${holder.pid}\n`)
  await t.rejects(startEmbeddedPostgres({ dataDir, log }), { message: new RegExp(`pid ${holder.pid}\\) holds`) })
  t.notOk(existsSync(join(dataDir, 'pg', 'data')), 'the database was not opened')
})

t.test('a stale lock left by a dead process is taken over', async (t) => {
  const dataDir = tempDir(t)
  mkdirSync(join(dataDir, 'pg'), { recursive: true })
  writeFileSync(join(dataDir, 'pg', 'svc.lock'), `${deadPid()}\n`)
  const pg = await startEmbeddedPostgres({ dataDir, log })
  t.teardown(() => pg.stop())
  const db = createDb(pg.url, { max: 1 })
  t.teardown(() => db.close())
  t.same((await db.query('SELECT 2 AS two')).rows, [{ two: 2 }])
})

t.test('a second client waits for the first connection to close instead of being refused', async (t) => {
  const pg = await startEmbeddedPostgres({ dataDir: tempDir(t), log })
  t.teardown(() => pg.stop())
  const first = createDb(pg.url, { max: 1 })
  const held = await first.pool.connect()
  await held.query('BEGIN')
  await held.query('CREATE TABLE turn (n int)')
  // Waiting its turn is what the embedded database asks of a second client: its pool settings have no connect timeout.
  const second = createDb(pg.url, pg.pool)
  t.teardown(() => second.close())
  let answered = false
  const waiting = second.query<{ n: number }>('SELECT count(*)::int AS n FROM turn').then((result) => {
    answered = true
    return result
  })
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.notOk(answered, 'the second client is held while the first is connected')
  await held.query('INSERT INTO turn VALUES ($1)', [7])
  await held.query('COMMIT')
  held.release()
  await first.close()
  t.same((await waiting).rows, [{ n: 1 }], 'it then sees the committed row')

  // A pool that closes and reconnects at once gets straight back in (once the second pool's idle
  // connection has closed: the gate admits one connection at a time).
  for (let i = 0; i < 3; i++) {
    const db = createDb(pg.url, pg.pool)
    await db.query('INSERT INTO turn VALUES ($1)', [i])
    await db.close()
  }
  t.same((await second.query('SELECT count(*)::int AS n FROM turn')).rows, [{ n: 4 }])
})

t.test('a data folder too deep for a socket path is served from a private temp folder, removed on stop', async (t) => {
  const base = tempDir(t)
  const dataDir = join(base, 'a'.repeat(60), 'b'.repeat(60))
  const tmpRoot = tempDir(t, 'svc-sock-')
  const pg = await startEmbeddedPostgres({ dataDir, log, tmpDir: tmpRoot })
  t.match(decodeURIComponent(pg.url), new RegExp(`^postgres://postgres@${tmpRoot}/svc-\\w{6}/postgres$`))
  const db = createDb(pg.url, { max: 1 })
  t.same((await db.query('SELECT 3 AS three')).rows, [{ three: 3 }])
  await db.close()
  await pg.stop()
  t.same(readdirSync(tmpRoot), [], 'the private socket folder is gone')
})

t.test('when no socket path fits anywhere it listens on loopback TCP', async (t) => {
  const base = tempDir(t)
  const dataDir = join(base, 'a'.repeat(60), 'b'.repeat(60))
  const pg = await startEmbeddedPostgres({ dataDir, log, tmpDir: dataDir })
  t.teardown(() => pg.stop())
  t.match(pg.url, /^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/)
  const db = createDb(pg.url, { max: 1 })
  t.teardown(() => db.close())
  t.same((await db.query('SELECT 4 AS four')).rows, [{ four: 4 }])
})

t.test('a committed transaction survives its owner being killed outright, and the next start takes over', async (t) => {
  const dataDir = tempDir(t)
  const script = `const { startEmbeddedPostgres } = await import(process.argv[1]);
const { createDb } = await import(process.argv[2]);
const { createLogger } = await import(process.argv[3]);
const pg = await startEmbeddedPostgres({ dataDir: process.argv[4], log: createLogger('silent') });
const db = createDb(pg.url, { max: 1 });
await db.query('CREATE TABLE kept (n int)');
await db.withTransaction((client) => client.query('INSERT INTO kept VALUES ($1)', [42]));
console.log('committed');
setInterval(() => {}, 1000);`
  const modules = ['../../../shared/embedded/index.ts', '../../../shared/db/index.ts', '../../../shared/log.ts'].map((path) => new URL(path, import.meta.url).href)
  const owner = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, ...modules, dataDir], { env: childEnv(), stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(() => stopChild(owner))
  const said = await new Promise<string>((resolve) => owner.stdout.setEncoding('utf8').once('data', resolve))
  t.equal(said.trim(), 'committed')
  await stopChild(owner)
  t.ok(existsSync(join(dataDir, 'pg', 'svc.lock')), 'the killed owner left its lock behind')

  const pg = await startEmbeddedPostgres({ dataDir, log })
  t.teardown(() => pg.stop())
  const db = createDb(pg.url, { max: 1 })
  t.teardown(() => db.close())
  t.same((await db.query('SELECT n FROM kept')).rows, [{ n: 42 }])
})
