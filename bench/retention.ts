/**
 * npm run bench:retention: one retention pass over BENCH_EVENTS events (10,000,000) received over
 * 120 days in BENCH_PROJECTS projects (10; every fifth kept 30 days, the rest the 90-day default),
 * seeded by SQL with small, realistic-ish bodies. Prints the pass's time, the events table's and
 * its indexes' sizes before and after, and the p50 and p99 of grouper-like inserts of 100 events
 * without the pass and while it runs, side by side.
 *
 * Runs on BENCH_DATABASE_URL's server (default: the machine's PostgreSQL at 127.0.0.1:5432, user
 * postgres) in a scratch database dropped at the end. BENCH_BATCHES (300): inserts timed per side.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { availableParallelism, loadavg } from 'node:os'
import pg from 'pg'
import { runRetentionPass } from '../services/grouper/retention/pass.js'
import { createWeeks, getPartitions } from '../services/grouper/retention/partitions.js'
import { createDb, type Db } from '../shared/db/index.js'
import { migrate } from '../shared/db/migrate.js'
import { DAY } from '../shared/time.js'
import { seedEvents, seedProjectIssue } from '../test/helpers/events-seed.js'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000)
const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 10)
const BATCHES = Number(process.env.BENCH_BATCHES ?? 300)
const SERVER = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const SPAN_DAYS = 120
/** Rows per seeding statement: one statement's memory and WAL stay modest. */
const SEED_CHUNK = 1_000_000

const count = (n: number): string => n.toLocaleString('en-US')
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`
const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

/** The events table's heap and index bytes over its partitions, and its rows. */
async function sizes(db: Db): Promise<{ table: number; indexes: number; rows: number }> {
  const { rows } = await db.query<{ table: string; indexes: string }>(
    `SELECT sum(pg_table_size(relid)) AS table, sum(pg_indexes_size(relid)) AS indexes FROM pg_partition_tree('events') WHERE isleaf`,
  )
  const n = await db.query<{ n: string }>('SELECT count(*) AS n FROM events')
  return { table: Number(rows[0]!.table), indexes: Number(rows[0]!.indexes), rows: Number(n.rows[0]!.n) }
}

/** One batch of 100 events as the grouper writes them: receipts first, then the events not stored already. */
async function insertBatch(db: Db, project: { projectId: string; issueId: string }): Promise<number> {
  const rows = Array.from({ length: 100 }, (_, n) => ({
    id: randomUUID(), p: project.projectId, i: project.issueId, o: new Date().toISOString(), r: new Date().toISOString(),
    g: { version: 4, fingerprint: 'f' }, b: { error: { type: 'TypeError', message: `x is undefined #${n}` }, context: { url: 'https://app.example/p/1' } },
  }))
  const at = performance.now()
  await db.withTransaction((client) => client.query(
    `WITH x AS (SELECT * FROM json_to_recordset($1::json) AS x(id uuid, p uuid, i uuid, o timestamptz, r timestamptz, g json, b json)),
     receipt AS (INSERT INTO event_receipts (id, received_at) SELECT id, r FROM x ON CONFLICT (id) DO NOTHING RETURNING id)
     INSERT INTO events (id, project_id, issue_id, occurred_at, received_at, grouping, payload)
     SELECT x.id, p, i, o, r, g, b FROM x JOIN receipt USING (id)
     WHERE NOT EXISTS (SELECT 1 FROM events old WHERE old.id = x.id AND old.received_at > x.r - interval '7 days' AND old.received_at < x.r)
     ON CONFLICT (id, received_at) DO NOTHING`,
    [JSON.stringify(rows)],
  ))
  return performance.now() - at
}

/** Times inserts until `until` settles (at least BATCHES of them); answers the sorted times. */
async function timeInserts(db: Db, project: { projectId: string; issueId: string }, until?: Promise<unknown>): Promise<number[]> {
  let done = until === undefined
  void until?.finally(() => (done = true))
  const times: number[] = []
  while (times.length < BATCHES || !done) times.push(await insertBatch(db, project))
  return times.sort((a, b) => a - b)
}

const admin = new pg.Client({ connectionString: SERVER })
await admin.connect()
const name = `svc_bench_retention_${randomBytes(5).toString('hex')}`
await admin.query(`CREATE DATABASE ${name}`)
const url = new URL(SERVER)
url.pathname = `/${name}`
const db = createDb(url.toString(), { max: 4 })
try {
  console.log(`machine: ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(2)}; ${count(EVENTS)} events over ${SPAN_DAYS} days in ${PROJECTS} projects`)
  await migrate(db)
  const now = Date.now()
  await createWeeks(db, await getPartitions(db), now - (SPAN_DAYS + 7) * DAY, now)
  const projects = []
  for (let n = 0; n < PROJECTS; n++) projects.push(await seedProjectIssue(db, `Bench ${n}`, n % 5 === 4 ? 30 : null))
  let at = performance.now()
  const perProject = Math.floor(EVENTS / PROJECTS)
  for (const project of projects) {
    for (let done = 0; done < perProject; done += SEED_CHUNK) {
      // Each chunk a slice of the span, so chunks of one project do not overlap in time.
      const rows = Math.min(SEED_CHUNK, perProject - done)
      const until = new Date(now - (done / perProject) * SPAN_DAYS * DAY)
      await seedEvents(db, project, rows, (rows / perProject) * SPAN_DAYS, until)
    }
  }
  await db.query('ANALYZE events')
  console.log(`seeded in ${((performance.now() - at) / 1000).toFixed(0)} s`)

  const before = await sizes(db)
  const quiet = await timeInserts(db, projects[0]!)
  at = performance.now()
  let passMs = 0
  const pass = runRetentionPass(db, { retentionDays: 90 }, now).then((done) => ((passMs = performance.now() - at), done))
  const busy = await timeInserts(db, projects[0]!, pass)
  const done = await pass
  // Without the pass again, after it: the first side runs just after seeding (checkpoints, autovacuum on the new rows), which can make it the slower.
  const quietAfter = await timeInserts(db, projects[0]!)
  const after = await sizes(db)

  console.log(`\nretention pass: ${(passMs / 1000).toFixed(1)} s; ${done.dropped.length} weeks dropped, ${count(done.rowsDeleted)} rows deleted by batch, ${done.created.length} weeks made`)
  console.log(`${''.padEnd(22)} ${'before'.padStart(12)} ${'after'.padStart(12)}`)
  console.log(`${'events rows'.padEnd(22)} ${count(before.rows).padStart(12)} ${count(after.rows).padStart(12)}`)
  console.log(`${'events table'.padEnd(22)} ${mib(before.table).padStart(12)} ${mib(after.table).padStart(12)}`)
  console.log(`${'events indexes'.padEnd(22)} ${mib(before.indexes).padStart(12)} ${mib(after.indexes).padStart(12)}`)
  console.log(`\ninsert of 100 events    ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'batches'.padStart(8)}`)
  console.log(`without the pass        ${percentile(quiet, 0.5).toFixed(2).padStart(8)} ${percentile(quiet, 0.99).toFixed(2).padStart(8)} ${String(quiet.length).padStart(8)}`)
  console.log(`during the pass         ${percentile(busy, 0.5).toFixed(2).padStart(8)} ${percentile(busy, 0.99).toFixed(2).padStart(8)} ${String(busy.length).padStart(8)}`)
  console.log(`without, after it       ${percentile(quietAfter, 0.5).toFixed(2).padStart(8)} ${percentile(quietAfter, 0.99).toFixed(2).padStart(8)} ${String(quietAfter.length).padStart(8)}`)
} finally {
  await db.close()
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await admin.end()
}
