/**
 * npm run bench:alerts: how long an alert takes, from the event's receipt at the ingress to the
 * chat's post, at 1,000 events/s (BENCH_ALERT_RATE) for 20 s (BENCH_ALERT_SECONDS). The ingress
 * and one worker hosting the grouper and the alerter run as `svc` child processes on a throwaway
 * PostgreSQL and Redis (or BENCH_DATABASE_URL / BENCH_REDIS_URL); a loopback chat receiver notes
 * when each post arrives. One event in 50 is a bug never seen before (a new issue, so a new-issue
 * alert); the rest repeat 200 known bugs, whose own issues are made (and alerted) in a warm-up
 * first. Each alerted issue's latency is the arrival of the post carrying it (its delivery's stored
 * message is the text posted) minus the receipt its firing recorded (the earliest of its batch);
 * p50 and p99 are printed with the messages' sizes. With the default gather delay (ALERT_GATHER_SECONDS, 2 s) most of it is the
 * wait that folds alerts into one message. Figures only: nothing is asserted.
 */
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { availableParallelism, loadavg } from 'node:os'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChildProcess } from 'node:child_process'
import pg from 'pg'
import { createDb } from '../shared/db/index.js'
import { migrate } from '../shared/db/migrate.js'
import { applySeed, SEED_INGEST_KEY, SEED_PROJECT_ID } from '../shared/db/seed.js'
import { startPostgres, startRedis } from '../scripts/throwaway-services.mjs'
import { child, startIngressChild, stopChild, SVC, waitHttp } from './load/children.js'
import { realisticEvent } from './load/events.js'
import { pacedPost } from './load/paced-post.js'

const RATE = Number(process.env.BENCH_ALERT_RATE ?? 1000)
const SECONDS = Number(process.env.BENCH_ALERT_SECONDS ?? 20)
/** One event in NEW_EVERY opens a new issue. */
const NEW_EVERY = 50
const INGRESS_PORT = 18_471
const WORKER_HEALTH_PORT = 18_472

const cleanups: Array<() => Promise<void>> = []
const register = (fn: () => Promise<void>): void => void cleanups.push(fn)
const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN

/** The i-th event: a bug of its own every NEW_EVERY-th, else one of realisticEvent's 200. */
function eventBody(i: number, run: string): string {
  const event = realisticEvent(i)
  if (i % NEW_EVERY !== 0) return JSON.stringify(event)
  const name = `fresh${run}_${i}`
  return JSON.stringify({ ...event, event_id: undefined, error: { type: 'Error', message: `${name} failed`, stack: `Error: ${name} failed\n    at ${name} (https://shop.example.com/assets/${name}.js:1:1)` } })
}

try {
  console.log(`machine: ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(2)} at the start`)
  const serverUrl = process.env.BENCH_DATABASE_URL ?? (await startPostgres(register))
  const redisUrl = process.env.BENCH_REDIS_URL ?? (await startRedis(register))
  const name = `svc_bench_alerts_${randomBytes(5).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  register(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  })
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  const db = createDb(url.toString(), { max: 2 })
  register(() => db.close())
  await migrate(db)
  await applySeed(db)

  // The chat: every post's arrival time and text.
  const posts: Array<{ at: number; text: string }> = []
  const receiver = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      const at = Date.now()
      posts.push({ at, text: String((JSON.parse(body) as { text?: unknown }).text ?? '') })
      res.writeHead(200, { 'content-type': 'text/html' }).end('ok')
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  register(() => new Promise((resolve) => receiver.close(() => resolve())))
  const webhook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/services/TBENCH/BBENCH/bench`
  await db.query(`UPDATE projects SET chat_webhook_url = $2, chat_connected_at = now() WHERE id = $1`, [SEED_PROJECT_ID, webhook])

  const objectDir = mkdtempSync(join(tmpdir(), 'svc-bench-objects-'))
  register(() => Promise.resolve(rmSync(objectDir, { recursive: true, force: true })))
  const env = {
    DATABASE_URL: url.toString(),
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: `svcbench:${randomBytes(4).toString('hex')}:`,
    INGESTION_PORT: String(INGRESS_PORT),
    WORKER_HEALTH_PORT: String(WORKER_HEALTH_PORT),
    SVC_EVENTS_PER_KEY_PER_MINUTE: '100000000',
    SVC_EVENTS_BACKLOG_LIMIT: '100000000',
    SVC_OBJECT_DIR: objectDir,
    SVC_INGRESS_THREADS: '1',
    SVC_ALLOW_PRIVATE_WEBHOOKS: '1',
    SVC_SERVICES: 'grouper,alerter',
    LOG_LEVEL: 'error',
  }
  const children: ChildProcess[] = []
  register(async () => {
    for (const proc of children) await stopChild(proc)
  })
  const worker = child([SVC, 'worker'], env)
  children.push(worker)
  await waitHttp(`http://127.0.0.1:${WORKER_HEALTH_PORT}/health`)
  children.push(await startIngressChild(env))

  const url_ = `http://127.0.0.1:${INGRESS_PORT}/api/v1/events`
  const headers = { 'Content-Type': 'application/json', 'X-API-Key': SEED_INGEST_KEY }
  /** Waits until every firing's delivery ended (2 minutes at most). */
  const settled = async (): Promise<void> => {
    const deadline = Date.now() + 120_000
    for (let quiet = 0; quiet < 5 && Date.now() < deadline; ) {
      const { rows } = await db.query<{ open: number }>(`SELECT count(*)::int AS open FROM alert_deliveries WHERE state NOT IN ('delivered', 'failed', 'broken')`)
      quiet = rows[0]!.open === 0 ? quiet + 1 : 0
      await new Promise((resolve) => setTimeout(resolve, 400))
    }
  }
  // Warm-up: the 200 repeating bugs' own issues (and their new-issue alerts) before the measured run.
  await pacedPost(url_, headers, 200, 200, (i) => JSON.stringify(realisticEvent(i)))
  await settled()
  const since = (await db.query<{ now: Date }>('SELECT now()')).rows[0]!.now

  const run = randomBytes(3).toString('hex')
  const count = RATE * SECONDS
  const expected = Math.ceil(count / NEW_EVERY)
  console.log(`load: ${RATE.toLocaleString('en-US')} events/s for ${SECONDS} s, one in ${NEW_EVERY} a new issue (${expected} alerts); gather ${process.env.ALERT_GATHER_SECONDS ?? '2'} s`)
  const sent = await pacedPost(url_, headers, RATE, count, (i) => eventBody(i + 200, run))
  if (sent.failures.size > 0) console.log(`failed posts: ${[...sent.failures].map(([why, n]) => `${why} ×${n}`).join(', ')}`)
  const deadline = Date.now() + 120_000
  while (Date.now() < deadline) {
    const { rows } = await db.query<{ fired: number }>(`SELECT count(*)::int AS fired FROM alert_firings WHERE fired_at > $1`, [since])
    if (rows[0]!.fired >= expected) break
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  await settled()

  // A delivery's stored message is the text posted: its arrival is each of its firings' post.
  const arrived = new Map(posts.map((post) => [post.text, post.at]))
  const { rows: firings } = await db.query<{ received_at: string | null; message: string | null; lines: number }>(
    `SELECT f.detail->>'receivedAt' AS received_at, d.message, (SELECT count(*) FROM alert_firings g WHERE g.delivery_id = d.id)::int AS lines
       FROM alert_firings f JOIN alert_deliveries d ON d.id = f.delivery_id WHERE f.fired_at > $1 AND f.kind = 'new_issue'`,
    [since],
  )
  const latencies = firings.filter((f) => f.received_at && f.message !== null && arrived.has(f.message)).map((f) => arrived.get(f.message!)! - Number(f.received_at)).sort((a, b) => a - b)
  const messages = new Map(firings.map((f) => [f.message, f.lines]))
  const perMessage = [...messages.values()].sort((a, b) => a - b)
  console.log(`alerts: ${firings.length} fired of ${expected} new issues, ${latencies.length} posted, in ${messages.size} messages (alerts a message: median ${quantile(perMessage, 0.5)}, max ${perMessage.at(-1) ?? 0})`)
  console.log(`alert latency, event receipt to chat post: p50 ${quantile(latencies, 0.5)} ms, p99 ${quantile(latencies, 0.99)} ms, max ${latencies.at(-1) ?? NaN} ms`)
  console.log(`load average ${loadavg()[0]!.toFixed(2)} at the end`)
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => console.error('cleanup failed', error))
}
