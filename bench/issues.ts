/**
 * npm run bench:issues: the issue list's searches (services/grouper/read/issue-list.ts) over one
 * project of 100,000 issues (BENCH_ISSUES) and 10,000,000 events (BENCH_EVENTS), seeded by SQL
 * (generate_series, in batches) with the tables the grouper keeps for the filters (issue_releases,
 * issue_environments, issue_actors), then ANALYZEd. Each kind of list is asked BENCH_RUNS times
 * (200) with varying values where it has them, and its p50 and p99 printed; BENCH_EXPLAIN=1 also
 * prints each kind's plan once. Figures only: nothing is asserted.
 *
 * Runs on BENCH_DATABASE_URL's server when set, else on a throwaway PostgreSQL started for it and
 * removed after.
 */
import { randomBytes } from 'node:crypto'
import { availableParallelism, loadavg } from 'node:os'
import pg from 'pg'
import { searchIssues } from '../services/grouper/read/issue-list.js'
import type { IssueFilter } from '../services/grouper/read/issue-filter.js'
import { createDb, type Db, type Queryable } from '../shared/db/index.js'
import { migrate } from '../shared/db/migrate.js'
import { userKey } from '../shared/domain/user-key.js'
import { startPostgres } from '../scripts/throwaway-services.mjs'

const ISSUES = Number(process.env.BENCH_ISSUES ?? 100_000)
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000)
const RUNS = Number(process.env.BENCH_RUNS ?? 200)
const EXPLAIN = process.env.BENCH_EXPLAIN === '1'
const EVENT_BATCH = 500_000
const USERS = 20_000
const RELEASES = 30
const ENVIRONMENTS = ['production', 'staging', 'development']
/** Words the titles are made of, so text searches match a share of the issues. */
const WORDS = ['checkout', 'cart', 'payment', 'login', 'profile', 'search', 'upload', 'render', 'router', 'socket', 'invoice', 'shipping', 'coupon', 'avatar', 'settings', 'billing', 'export', 'import', 'filter', 'calendar']
const DAY_MS = 86_400_000
const START = Date.parse('2026-01-01T00:00:00Z')
/** Events are spread over 90 days. */
const SPAN_DAYS = 90

const cleanups: Array<() => Promise<void>> = []
const register = (fn: () => Promise<void>): void => void cleanups.push(fn)
const seconds = (start: number): string => ((performance.now() - start) / 1000).toFixed(1)
const count = (n: number): string => n.toLocaleString('en-US')
const pick = <T>(values: readonly T[], n: number): T => values[n % values.length]!

/** Seeds the project; answers its id. */
async function seed(db: Db): Promise<string> {
  const { rows } = await db.query<{ id: string }>(`INSERT INTO projects (name) VALUES ('Bench') RETURNING id`)
  const projectId = rows[0]!.id
  await db.query(`INSERT INTO environments (project_id, name) SELECT $1, unnest($2::text[])`, [projectId, ENVIRONMENTS])
  const releases = Array.from({ length: RELEASES }, (_, n) => `shop@1.${n}.0`)
  await db.query(`INSERT INTO releases (project_id, name, first_seen) SELECT $1, name, $3::timestamptz + n * interval '3 days' FROM unnest($2::text[]) WITH ORDINALITY AS r (name, n)`, [projectId, releases, new Date(START)])
  // Skewed statuses and triage, as a real project has them: most new and open, a few noise.
  let start = performance.now()
  await db.query(
    `INSERT INTO issues (project_id, fingerprint, grouping_version, status, title, culprit, first_seen, last_seen, triage, resolved_mode, resolved_at, noise)
     SELECT $1, 'fp-' || n, 4,
            (ARRAY['new','new','new','new','new','queued','investigated','insight','needs_human','pr_draft'])[1 + n % 10],
            (ARRAY['TypeError','RangeError','Error','SyntaxError'])[1 + n % 4] || ': ' || ($2::text[])[1 + (n * 7) % array_length($2::text[], 1)] || ' ' || ($2::text[])[1 + (n * 13) % array_length($2::text[], 1)] || ' failed on item_' || n,
            ($2::text[])[1 + n % array_length($2::text[], 1)] || 'Handler (src/' || ($2::text[])[1 + (n * 3) % array_length($2::text[], 1)] || '/index_' || n % 500 || '.ts:' || 1 + n % 200 || ')',
            $3::timestamptz, $3::timestamptz,
            CASE WHEN n % 20 < 16 THEN 'open' WHEN n % 20 < 19 THEN 'resolved' ELSE 'ignored' END,
            CASE WHEN n % 20 BETWEEN 16 AND 18 THEN 'now' ELSE '' END,
            CASE WHEN n % 20 BETWEEN 16 AND 18 THEN $3::timestamptz END,
            CASE WHEN n % 50 = 0 THEN 'resize-observer-loop' ELSE '' END
       FROM generate_series(1, $4) AS n`,
    [projectId, WORDS, new Date(START), ISSUES],
  )
  await db.query(`CREATE TABLE bench_issue AS SELECT row_number() OVER (ORDER BY fingerprint)::int AS n, id FROM issues WHERE project_id = $1`, [projectId])
  await db.query(`ALTER TABLE bench_issue ADD PRIMARY KEY (n)`)
  console.log(`issues: ${count(ISSUES)} in ${seconds(start)} s`)

  const users = Array.from({ length: USERS }, (_, n) => userKey(projectId, { id: `user-${n}` })!)
  const { rows: envs } = await db.query<{ id: string }>(`SELECT id FROM environments WHERE project_id = $1 ORDER BY name`, [projectId])
  await loadEvents(db, projectId, envs.map((e) => e.id), users)
  start = performance.now()
  await db.query(
    `UPDATE issues i SET event_count = e.n, first_seen = e.first, last_seen = e.last
       FROM (SELECT issue_id, count(*) AS n, min(received_at) AS first, max(received_at) AS last FROM events WHERE project_id = $1 GROUP BY issue_id) e
      WHERE i.id = e.issue_id`,
    [projectId],
  )
  await db.query(`INSERT INTO issue_releases (project_id, issue_id, release, first_seen) SELECT project_id, issue_id, release, min(received_at) FROM events WHERE project_id = $1 GROUP BY 1, 2, 3`, [projectId])
  await db.query(
    `INSERT INTO issue_environments (project_id, issue_id, environment_id, first_seen) SELECT project_id, issue_id, environment_id, min(received_at) FROM events WHERE project_id = $1 GROUP BY 1, 2, 3`,
    [projectId],
  )
  await db.query(
    `INSERT INTO issue_actors (issue_id, actor_kind, actor, first_seen, last_seen) SELECT issue_id, 'u', user_key, min(received_at), max(received_at) FROM events WHERE project_id = $1 AND user_key IS NOT NULL GROUP BY 1, 3`,
    [projectId],
  )
  await db.query(`UPDATE issues i SET user_count = a.n FROM (SELECT issue_id, count(*)::int AS n FROM issue_actors WHERE actor_kind = 'u' GROUP BY issue_id) a WHERE i.id = a.issue_id`)
  await db.query('DROP TABLE bench_issue')
  await db.query('VACUUM ANALYZE')
  const sizes = await db.query<{ releases: string; environments: string; actors: string }>(
    `SELECT (SELECT count(*) FROM issue_releases)::text AS releases, (SELECT count(*) FROM issue_environments)::text AS environments, (SELECT count(*) FROM issue_actors)::text AS actors`,
  )
  const s = sizes.rows[0]!
  console.log(`counters, issue_releases (${count(Number(s.releases))}), issue_environments (${count(Number(s.environments))}), issue_actors (${count(Number(s.actors))}), VACUUM ANALYZE: ${seconds(start)} s`)
  return projectId
}

/**
 * The events, loaded as a restore would: the table's indexes built once after the rows, and
 * (where the role may) without a foreign-key check per row, since every row points at rows seeded
 * before it.
 */
async function loadEvents(db: Db, projectId: string, environmentIds: string[], users: string[]): Promise<void> {
  const loader = await db.pool.connect()
  try {
    const fast = await loader.query('SET session_replication_role = replica').then(
      () => true,
      () => false,
    )
    const { rows: indexes } = await loader.query<{ name: string; def: string }>(
      `SELECT c.relname AS name, CASE WHEN k.contype = 'p' THEN 'ALTER TABLE events ADD CONSTRAINT ' || quote_ident(c.relname) || ' ' || pg_get_constraintdef(k.oid) ELSE pg_get_indexdef(c.oid) END AS def
         FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid LEFT JOIN pg_constraint k ON k.conindid = c.oid AND k.conrelid = x.indrelid
        WHERE x.indrelid = 'events'::regclass`,
    )
    for (const index of indexes) await loader.query(index.def.startsWith('ALTER') ? `ALTER TABLE events DROP CONSTRAINT ${index.name}` : `DROP INDEX ${index.name}`)
    const start = performance.now()
    for (let from = 1; from <= EVENTS; from += EVENT_BATCH) {
      const to = Math.min(EVENTS, from + EVENT_BATCH - 1)
      // A few issues take most events (random()^3); each event's time, release, environment and user follow its number.
      await loader.query(
        `INSERT INTO events (id, project_id, issue_id, environment_id, occurred_at, received_at, release, user_key, grouping, payload)
         SELECT gen_random_uuid(), $1, bi.id, ($2::uuid[])[1 + (g.n % 10 > 0)::int + (g.n % 10 > 7)::int], g.at, g.at,
                'shop@1.' || least($3 - 1, floor(extract(epoch FROM g.at - $4::timestamptz) / 259200))::int || '.0',
                CASE WHEN g.n % 3 > 0 THEN ($5::text[])[1 + (g.n * 31) % array_length($5::text[], 1)] END,
                '{"version":4}', '{"error":{"type":"TypeError"}}'
           FROM (SELECT n, $4::timestamptz + (n::float8 / $6) * $7 * interval '1 day' AS at, 1 + floor($8 * power(random(), 3))::int AS issue
                   FROM generate_series($9::int, $10::int) AS n) g
           JOIN bench_issue bi ON bi.n = g.issue`,
        [projectId, environmentIds, RELEASES, new Date(START), users, EVENTS, SPAN_DAYS, ISSUES, from, to],
      )
      process.stdout.write(`\revents: ${count(to)} of ${count(EVENTS)} (${seconds(start)} s)`)
    }
    console.log()
    const built = performance.now()
    for (const index of indexes) await loader.query(index.def)
    await loader.query('RESET session_replication_role')
    console.log(`events' ${indexes.length} indexes built after the load in ${seconds(built)} s (${fast ? 'without' : 'with'} a foreign-key check per row)`)
  } finally {
    loader.release()
  }
}

/** Each kind of list: its filter for the i-th run. */
function kinds(): Array<[string, (i: number) => IssueFilter]> {
  const day = (n: number): Date => new Date(START + n * DAY_MS)
  return [
    ['default (open, last seen)', () => ({})],
    ['triage=all', () => ({ triage: ['open', 'resolved', 'ignored'] })],
    ['text, common word', (i) => ({ query: pick(WORDS, i) })],
    ['text, one issue', (i) => ({ query: `item_${1 + ((i * 7919) % ISSUES)} ` })],
    ['text, two letters', () => ({ query: 'ck' })],
    ['release', (i) => ({ release: `shop@1.${i % RELEASES}.0` })],
    ['environment (staging)', () => ({ environment: 'staging' })],
    ['user (by id)', (i) => ({ user: `user-${(i * 131) % USERS}` })],
    ['status=investigated', () => ({ status: ['investigated'] })],
    ['last seen in a week', (i) => ({ lastSeenFrom: day(i % 80), lastSeenTo: day((i % 80) + 7) })],
    ['first seen in a week', (i) => ({ firstSeenFrom: day(i % 80), firstSeenTo: day((i % 80) + 7) })],
    ['sort=first_seen', () => ({ sort: 'first_seen' })],
    ['sort=events', () => ({ sort: 'events' })],
    ['sort=users', () => ({ sort: 'users' })],
    ['text + release + sort=events', (i) => ({ query: pick(WORDS, i), release: `shop@1.${i % RELEASES}.0`, sort: 'events' })],
  ]
}

/** A Queryable that remembers the list's statement, for EXPLAIN. */
function recording(db: Queryable): Queryable & { last?: { sql: string; params: unknown[] } } {
  const wrapped: Queryable & { last?: { sql: string; params: unknown[] } } = {
    query: (sql, params) => {
      if (sql.includes('FROM issues i')) wrapped.last = { sql, params: params ?? [] }
      return db.query(sql, params)
    },
  }
  return wrapped
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

try {
  console.log(`machine: ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(2)} at the start; ${count(ISSUES)} issues, ${count(EVENTS)} events, ${RUNS} runs a kind`)
  const serverUrl = process.env.BENCH_DATABASE_URL ?? (await startPostgres(register))
  const name = `svc_bench_issues_${randomBytes(5).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  register(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  })
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  const db = createDb(url.toString(), { max: 4 })
  register(() => db.close())
  await migrate(db)
  const trgm = await db.query(`SELECT 1 FROM pg_indexes WHERE indexname = 'issues_search_trgm'`)
  console.log(`pg_trgm index: ${trgm.rowCount ? 'yes' : 'no (text search scans)'}`)
  const projectId = await seed(db)

  console.log(`\n${'kind'.padEnd(34)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'rows'.padStart(6)}`)
  // As the project API and the tool server ask; the dashboard also counts noise issues (the last line).
  const measure = async (label: string, filter: (i: number) => IssueFilter, page2: boolean, countNoise = false): Promise<void> => {
    const times: number[] = []
    let rows = 0
    const probe = recording(db)
    for (let i = 0; i < RUNS; i++) {
      let asked = filter(i)
      if (page2) {
        const first = await searchIssues(db, projectId, asked, { countNoise: false })
        if (first.nextCursor) asked = { ...asked, cursor: first.nextCursor }
      }
      const at = performance.now()
      const page = await searchIssues(probe, projectId, asked, { countNoise })
      times.push(performance.now() - at)
      rows += page.issues.length
    }
    times.sort((a, b) => a - b)
    console.log(`${label.padEnd(34)} ${percentile(times, 0.5).toFixed(2).padStart(8)} ${percentile(times, 0.99).toFixed(2).padStart(8)} ${String(Math.round(rows / RUNS)).padStart(6)}`)
    if (EXPLAIN && probe.last) {
      const plan = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${probe.last.sql}`, probe.last.params)
      console.log(plan.rows.map((r) => `    ${r['QUERY PLAN']}`).join('\n'))
    }
  }
  for (const [label, filter] of kinds()) await measure(label, filter, false)
  await measure('page 2 (default, by cursor)', () => ({}), true)
  await measure('page 2 (sort=events, by cursor)', () => ({ sort: 'events' }), true)
  await measure('page 2 (text, by cursor)', (i) => ({ query: pick(WORDS, i) }), true)
  await measure('default + noise count (dashboard)', () => ({}), false, true)
} finally {
  for (const fn of cleanups.reverse()) await fn().catch((error: unknown) => console.error('cleanup failed', error))
}
