/**
 * npm run bench:digest: the digester with 10,000 projects (BENCH_DIGEST_PROJECTS) in eight time
 * zones, half of them with an investigation completed in the window, mechanical text and no chat
 * (kept). Measured in one run on a manual clock: scheduling every project, one sweep's look for
 * due projects when none is due (what each worker pays every DIGEST_SWEEP_SECONDS), opening every
 * due day, then running them: the writes, and the checks ten minutes later, through the real
 * digester service (stream consumers, fleet slots) as a worker runs it.
 *
 * Runs on BENCH_DATABASE_URL's server and BENCH_REDIS_URL when set, else on a throwaway PostgreSQL
 * and Redis started for it and removed after.
 */
import { randomBytes } from 'node:crypto'
import { availableParallelism, loadavg } from 'node:os'
import pg from 'pg'
import { ManualClock } from '../services/digester/clock.js'
import { createDigester, digesterLoops } from '../services/digester/index.js'
import { DIGESTER_ENTITIES } from '../services/digester/store/entities.js'
import { openDueDigests, scheduleProjects } from '../services/digester/sweep.js'
import { loadConfig } from '../shared/config/index.js'
import { createDb } from '../shared/db/index.js'
import { createLogger } from '../shared/log.js'
import { migrate } from '../shared/db/migrate.js'
import { createOrm } from '../shared/db/orm.js'
import { createRedis, streamKeys } from '../shared/redis.js'
import { ensureGroup } from '../shared/streams/index.js'
import { GROUPS } from '../shared/topology.js'
import { startPostgres, startRedis } from '../scripts/throwaway-services.mjs'

const PROJECTS = Number(process.env.BENCH_DIGEST_PROJECTS ?? 10_000)
const ZONES = ['Pacific/Auckland', 'Asia/Tokyo', 'Asia/Kolkata', 'Europe/Berlin', 'Europe/London', 'UTC', 'America/New_York', 'America/Los_Angeles']
const PER_PASS = 500
const START = '2026-06-10T00:00:00Z'

const cleanups: Array<() => Promise<void>> = []
const register = (fn: () => Promise<void>): void => void cleanups.push(fn)
const seconds = (start: number): string => ((performance.now() - start) / 1000).toFixed(2)
const count = (n: number): string => n.toLocaleString('en-US')

try {
  console.log(`machine: ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(2)} at the start`)
  const serverUrl = process.env.BENCH_DATABASE_URL ?? (await startPostgres(register))
  const redisUrl = process.env.BENCH_REDIS_URL ?? (await startRedis(register))
  const name = `svc_bench_digest_${randomBytes(5).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  register(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  })
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  const db = createDb(url.toString(), { max: 8 })
  register(() => db.close())
  await migrate(db)
  const seedStart = performance.now()
  await db.query(`INSERT INTO projects (name, timezone) SELECT 'Project ' || n, ($2::text[])[1 + n % array_length($2::text[], 1)] FROM generate_series(1, $1) AS n`, [PROJECTS, ZONES])
  await db.query(
    `WITH p AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM projects),
          i AS (INSERT INTO issues (project_id, fingerprint, grouping_version, title, first_seen, last_seen, user_count)
                SELECT id, 'fp-' || n, 4, 'TypeError: thing ' || n || ' is undefined', $1::timestamptz, $1::timestamptz, 1 + n % 20 FROM p WHERE n % 2 = 0 RETURNING id, project_id)
     INSERT INTO investigations (issue_id, project_id, episode, trigger, state, lease_until, finished_at) SELECT id, project_id, 1, 'auto', 'investigated', $1, $1 FROM i`,
    // Inside every window: the days are all opened at one instant of the clock, a little after the last 09:00.
    ['2026-06-10T12:00:00Z'],
  )
  console.log(`seeded ${count(PROJECTS)} projects in ${ZONES.length} time zones, ${count(Math.floor(PROJECTS / 2))} with an investigation completed in the window (${seconds(seedStart)} s)`)

  const clock = new ManualClock(START)
  let start = performance.now()
  let scheduled = 0
  for (let n = -1; n !== 0; scheduled += n) n = await scheduleProjects(db, clock, PER_PASS)
  console.log(`schedule: ${count(scheduled)} projects given their next 09:00 in ${seconds(start)} s (${PER_PASS} a pass)`)

  const idle: number[] = []
  for (let i = 0; i < 20; i++) {
    const at = performance.now()
    await openDueDigests(db, clock, PER_PASS)
    idle.push(performance.now() - at)
  }
  idle.sort((a, b) => a - b)
  console.log(`find due, none due: median ${idle[10]!.toFixed(2)} ms a sweep over ${count(PROJECTS)} projects (the index, not a scan)`)

  const { rows: [last] } = await db.query<{ at: Date }>('SELECT max(digest_next_at) AS at FROM projects')
  clock.set(new Date(last!.at.getTime() + 1000))
  start = performance.now()
  let opened = 0
  for (let n = -1; n !== 0; opened += n) n = await openDueDigests(db, clock, PER_PASS)
  console.log(`find due and open: ${count(opened)} digests opened in ${seconds(start)} s (${PER_PASS} a pass)`)

  const config = loadConfig({ DATABASE_URL: url.toString(), REDIS_URL: redisUrl, LOG_LEVEL: 'silent' })
  const redis = createRedis(redisUrl, { enableAutoPipelining: true })
  register(async () => redis.disconnect())
  const keys = streamKeys(`svcbench:${randomBytes(4).toString('hex')}:`)
  await ensureGroup(redis, keys.digests, GROUPS.digester)
  const orm = await createOrm(db, DIGESTER_ENTITIES)
  register(() => orm.close())
  const digester = createDigester({ db, orm, redis, keys, log: createLogger('silent'), timing: config.stream, settings: config.digest, chat: undefined, model: undefined, baseUrl: 'http://localhost:8082', clock })
  await digester.start()
  register(() => digester.stop())
  const runUntil = async (done: string): Promise<void> => {
    for (;;) {
      await digester.sweepNow()
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM digests WHERE NOT (${done})`)
      if (rows[0]!.n === 0) return
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  start = performance.now()
  await runUntil(`state IN ('empty', 'kept', 'delivered', 'undelivered') OR step = 'check'`)
  const writeSeconds = (performance.now() - start) / 1000
  console.log(`write: ${count(opened)} digests picked, frozen and written mechanically in ${writeSeconds.toFixed(1)} s (${Math.round(opened / writeSeconds)}/s; DIGEST_MAX_CONCURRENT=${config.digest.maxConcurrent}, ${digesterLoops(config.stream, config.digest)} consumer loops)`)
  clock.advance(config.digest.checkDelayMs)
  start = performance.now()
  await runUntil(`state IN ('empty', 'kept', 'delivered', 'undelivered')`)
  const checkSeconds = (performance.now() - start) / 1000
  const { rows: states } = await db.query<{ state: string; n: number }>('SELECT state, count(*)::int AS n FROM digests GROUP BY state ORDER BY state')
  console.log(`check: ${count(opened - (states.find((s) => s.state === 'empty')?.n ?? 0))} digests checked and composed in ${checkSeconds.toFixed(1)} s (no chat: kept)`)
  console.log(`ended: ${states.map((s) => `${s.state}=${count(s.n)}`).join(' ')}`)
} finally {
  for (const fn of cleanups.reverse()) await fn().catch((error: unknown) => console.error('cleanup failed', error))
}
