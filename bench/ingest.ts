/**
 * npm run bench:ingest: the ingestion spine measured side by side in one run on this machine,
 * against real PostgreSQL and Redis:
 *   1. raw ceiling: a bare uWebSockets.js route answering 202 to a 2 KB POST (wrk);
 *   2. accepted: the real ingress (auth, validation, rate-limit Lua, XADD) with 2 KB events (wrk);
 *   3. event-to-issue latency at 1,000 events/s through ingress and worker;
 *   4. drained: a pre-filled events stream grouped and stored by the worker, clock stopped when
 *      every event is in PostgreSQL and the group has nothing left.
 * Raw and accepted take the same load (1,000 distinct realistic events, bench/wrk.ts), after a
 * warm-up each, in alternating rounds, so a machine that drifts during the run moves both alike;
 * the medians are compared. Servers run as child processes so the load generator does not share
 * their event loop. Uses BENCH_DATABASE_URL / BENCH_REDIS_URL, else the machine's local servers; a
 * scratch database and key prefix are created and removed.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { createDb, type Db } from '../shared/db.js'
import { packedEntryFields, packedRecord } from '../shared/event.js'
import { migrate } from '../shared/migrate.js'
import type { Redis } from 'ioredis'
import { createRedis, streamKeys } from '../shared/redis.js'
import { applySeed, SEED_INGEST_KEY, SEED_PROJECT_ID } from '../shared/seed.js'
import { queueDepth } from '../shared/streams/index.js'
import { GROUPS } from '../shared/topology.js'
import { realisticEvent } from './events.js'
import { pacedPost } from './paced-post.js'
import { requireWrk, runWrk, writeLoads, type WrkResult } from './wrk.js'

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const WARM_UP_SECONDS = 3
const LATENCY_WARM_UP_SECONDS = 5
const DRAIN_EVENTS = Number(process.env.BENCH_DRAIN_EVENTS ?? 100_000)
const SVC = fileURLToPath(new URL('../bin/svc.js', import.meta.url))
const INGRESS_PORT = 18_082
const RAW_PORT = 18_083
const WORKER_HEALTH_PORT = 18_081
const INGRESS_THREADS = process.env.BENCH_INGRESS_THREADS ?? String(availableParallelism())

async function waitHttp(url: string, init?: RequestInit): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      await fetch(url, init)
      return
    } catch {
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  throw new Error(`${url} did not come up`)
}

function child(args: string[], env: Record<string, string>): ChildProcess {
  const proc = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] })
  return proc
}

/**
 * Starts `svc ingress` and resolves once every thread listens. /health answers as soon as the
 * first thread does, and wrk's keep-alive connections stay where they first land: loading at
 * that moment measured one thread, whatever SVC_INGRESS_THREADS said.
 */
async function startIngressChild(env: Record<string, string>): Promise<ChildProcess> {
  const proc = spawn(process.execPath, [SVC, 'ingress'], { env: { ...process.env, ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  await new Promise<void>((resolve, reject) => {
    proc.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString()
      for (const line of chunk.toString().split('\n')) if (/"level":"(warn|error)"/.test(line)) process.stderr.write(`${line}\n`)
      if (/"msg":"ingress (threads )?listening"/.test(log) && (env.SVC_INGRESS_THREADS === '1' || log.includes('ingress threads listening'))) resolve()
    })
    proc.once('exit', (code) => reject(new Error(`svc ingress exited with ${code} before listening`)))
  })
  proc.stderr!.resume()
  return proc
}

/** SIGTERM, then SIGKILL after 15 s: a server that does not stop must not hang the benchmark. */
async function stopChild(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      console.error(`bench: ${proc.spawnargs.slice(-1)[0]} ignored SIGTERM for 15 s; killed`)
      proc.kill('SIGKILL')
    }, 15_000)
    proc.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    proc.kill('SIGTERM')
  })
}

/** The middle value (the mean of the two middle ones for an even count). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}

/** Puts DRAIN_EVENTS varied events on the stream, perEntry to a packed entry, for a group created first. */
async function fillStream(redis: Redis, stream: string, perEntry: number): Promise<void> {
  await redis.xgroup('CREATE', stream, GROUPS.grouper, '0', 'MKSTREAM')
  for (let i = 0; i < DRAIN_EVENTS; i += 1000) {
    const pipeline = redis.pipeline()
    for (let j = i; j < Math.min(DRAIN_EVENTS, i + 1000); j += perEntry) {
      const records: string[] = []
      for (let k = j; k < Math.min(DRAIN_EVENTS, i + 1000, j + perEntry); k++) {
        records.push(packedRecord({ id: randomUUID(), projectId: SEED_PROJECT_ID, keyId: 'seede2e00001', receivedAt: Date.now(), body: JSON.stringify(realisticEvent(k)) }))
      }
      pipeline.xadd(stream, '*', ...packedEntryFields(records))
    }
    await pipeline.exec()
  }
}

/**
 * Sends rate events a second through the ingress, for warmUp seconds and then for seconds, and
 * reads when each of the latter was stored: milliseconds from the send, and from the ingress's
 * receipt to the grouper's commit (the rest is the client's), each sorted. Freshly started
 * processes take seconds to compile their hot paths; the figure is the running service's.
 */
async function measureLatency(db: Db, rate: number, warmUp: number, seconds: number): Promise<{ latencies: number[]; inService: number[]; failures: Map<string, number> }> {
  const skip = rate * warmUp
  const { answers, failures } = await pacedPost(`http://127.0.0.1:${INGRESS_PORT}/api/v1/events`, { 'Content-Type': 'application/json', 'X-API-Key': SEED_INGEST_KEY }, rate, skip + rate * seconds, (i) => JSON.stringify(realisticEvent(i)))
  const sentAt = new Map(answers.filter((a) => a.index >= skip).map((a) => [(JSON.parse(a.body) as { id: string }).id, a.startedAt]))
  const ids = [...sentAt.keys()]
  let stored: Array<{ id: string; stored: number; received: number }> = []
  for (let i = 0; i < 100; i++) {
    const { rows } = await db.query<{ id: string; stored: number; received: number }>('SELECT id, extract(epoch from stored_at) * 1000 AS stored, extract(epoch from received_at) * 1000 AS received FROM events WHERE id = ANY($1::uuid[])', [ids])
    stored = rows
    if (stored.length === ids.length) break
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    latencies: stored.map((r) => Number(r.stored) - sentAt.get(r.id)!).sort((a, b) => a - b),
    inService: stored.map((r) => Number(r.stored) - Number(r.received)).sort((a, b) => a - b),
    failures,
  }
}

async function main(): Promise<void> {
  requireWrk()
  const name = `svc_bench_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: ADMIN_URL })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  const dbUrl = new URL(ADMIN_URL)
  dbUrl.pathname = `/${name}`
  const databaseUrl = dbUrl.toString()
  const prefix = `svcbench:${randomBytes(4).toString('hex')}:`
  const db = createDb(databaseUrl, { max: 2 })
  const redis = createRedis(REDIS_URL)
  const keys = streamKeys(prefix)
  const env = {
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    INGESTION_PORT: String(INGRESS_PORT),
    WORKER_HEALTH_PORT: '0',
    SVC_EVENTS_PER_KEY_PER_MINUTE: '100000000',
    SVC_EVENTS_BACKLOG_LIMIT: '100000000',
    SVC_INGRESS_THREADS: INGRESS_THREADS,
    LOG_LEVEL: 'error',
  }
  const children: ChildProcess[] = []
  const cleanups: Array<() => void> = []
  try {
    await migrate(db)
    await applySeed(db)
    const bodies = Array.from({ length: 1000 }, (_, i) => JSON.stringify(realisticEvent(i * 7)))
    const loads = writeLoads(bodies, { 'Content-Type': 'application/json', 'X-API-Key': SEED_INGEST_KEY })
    cleanups.push(loads.remove)
    console.log(`event bodies: 1,000 distinct, about ${Buffer.byteLength(bodies[0]!)} bytes each; load: wrk -t1 -c64, ${ROUNDS} rounds of ${SECONDS} s per server after a ${WARM_UP_SECONDS} s warm-up; machine: ${availableParallelism()} cores; ingress threads: ${INGRESS_THREADS}`)

    // 1 and 2. The bare route and the real ingress (no worker competing for the cores), both up
    // and warmed, then measured in alternating rounds under the same load.
    const raw = child(['--import', 'tsx', fileURLToPath(new URL('./raw-uws.ts', import.meta.url)), String(RAW_PORT)], {})
    children.push(raw)
    await waitHttp(`http://127.0.0.1:${RAW_PORT}/`, { method: 'POST', body: '{}' })
    const ingress = await startIngressChild(env)
    children.push(ingress)
    const rawUrl = `http://127.0.0.1:${RAW_PORT}/api/v1/events`
    const ingressUrl = `http://127.0.0.1:${INGRESS_PORT}/api/v1/events`
    runWrk(rawUrl, loads.varied, WARM_UP_SECONDS)
    runWrk(ingressUrl, loads.varied, WARM_UP_SECONDS)
    const rounds: Array<{ raw: WrkResult; repeated: WrkResult; accepted: WrkResult }> = []
    for (let r = 0; r < ROUNDS; r++) {
      rounds.push({ raw: runWrk(rawUrl, loads.varied, SECONDS), repeated: runWrk(rawUrl, loads.repeated, SECONDS), accepted: runWrk(ingressUrl, loads.varied, SECONDS) })
    }
    const acceptedOf = (w: WrkResult): number => ((w.requests - w.non2xx) / w.requests) * w.rps
    const rawRps = median(rounds.map((r) => r.raw.rps))
    const repeatedRps = median(rounds.map((r) => r.repeated.rps))
    const acceptedRps = median(rounds.map((r) => acceptedOf(r.accepted)))
    const non2xx = rounds.reduce((sum, r) => sum + r.accepted.non2xx, 0)
    const acceptedRequests = rounds.reduce((sum, r) => sum + r.accepted.requests, 0) - non2xx
    const queued = await redis.xlen(keys.events)
    await stopChild(raw)
    await stopChild(ingress)
    await redis.del(keys.events)
    await db.query('TRUNCATE events, issue_actors, issues CASCADE')

    // 3. event-to-issue latency at 1,000 events/s through the ingress and a worker, on a quiet
    // database: measured after the drain, it also timed the checkpoint and autovacuum that a
    // hundred thousand fresh rows set off.
    const worker = child([SVC, 'worker'], { ...env, WORKER_HEALTH_PORT: String(WORKER_HEALTH_PORT) })
    children.push(worker)
    await waitHttp(`http://127.0.0.1:${WORKER_HEALTH_PORT}/health`)
    const ingress2 = await startIngressChild(env)
    children.push(ingress2)
    const rate = 1000
    const latencySeconds = 10
    const { latencies, inService, failures } = await measureLatency(db, rate, LATENCY_WARM_UP_SECONDS, latencySeconds)
    await stopChild(ingress2)
    await stopChild(worker)
    await redis.del(keys.events)
    await db.query('TRUNCATE events, issue_actors, issues CASCADE')

    // 4. drained: pre-fill the stream with varied events, packed as the ingress packs them (as many
    // per entry as the accepted rounds averaged), then time a fresh worker.
    await fillStream(redis, keys.events, Math.max(1, Math.round(acceptedRequests / Math.max(1, queued))))
    // The clock starts once the worker process is up (its /health answers), so the figure is the
    // grouper's rate, not Node's start-up time.
    const drainer = child([SVC, 'worker'], { ...env, WORKER_HEALTH_PORT: String(WORKER_HEALTH_PORT) })
    children.push(drainer)
    await waitHttp(`http://127.0.0.1:${WORKER_HEALTH_PORT}/health`)
    const drainStart = performance.now()
    const { rows: early } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM events')
    const drainCounted = DRAIN_EVENTS - early[0]!.n
    // Drained when the group has nothing undelivered, unacknowledged or held back: entries are
    // acknowledged only after their events commit. Asking Redis is cheap; counting the events
    // table every 20 ms was not, and took the cores the worker was being timed on.
    for (;;) {
      const depth = await queueDepth(redis, keys.events, GROUPS.grouper)
      if (depth.eligible + depth.heldBack === 0) break
      await new Promise((r) => setTimeout(r, 20))
    }
    const drainSeconds = (performance.now() - drainStart) / 1000
    const { rows: drainedRows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM events')
    if (drainedRows[0]!.n !== DRAIN_EVENTS) throw new Error(`drain: ${drainedRows[0]!.n} of ${DRAIN_EVENTS} events stored`)
    const { rows: issueRows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM issues')

    const each = (pick: (r: (typeof rounds)[number]) => number): string => rounds.map((r) => pick(r).toFixed(0)).join(', ')
    const percent = (x: number): string => `${(x * 100).toFixed(1)}%`
    console.log('')
    console.log('| figure | value (median of the rounds; each round) | target |')
    console.log('|---|---|---|')
    console.log(`| raw ceiling (bare uWS route, 202) | ${rawRps.toFixed(0)} req/s (${each((r) => r.raw.rps)}) | — |`)
    console.log(`| accepted by the ingress (2 KB events) | ${acceptedRps.toFixed(0)} events/s (${each((r) => acceptedOf(r.accepted))}) | ≥ 40% of raw |`)
    console.log(`| accepted / raw | ${percent(acceptedRps / rawRps)} (${rounds.map((r) => percent(acceptedOf(r.accepted) / r.raw.rps)).join(', ')}) | ≥ 40% |`)
    console.log(`| raw ceiling with one body repeated (wrk's static request, as earlier runs measured) | ${repeatedRps.toFixed(0)} req/s (${each((r) => r.repeated.rps)}); accepted is ${percent(acceptedRps / repeatedRps)} of it | — |`)
    console.log(`| drained (grouped and stored, stream empty) | ${(drainCounted / drainSeconds).toFixed(0)} events/s (${drainCounted} events timed, ${issueRows[0]!.n} issues, ${drainSeconds.toFixed(1)} s) | ≥ 5,000 events/s |`)
    console.log(`| event-to-issue p50 at ${rate}/s (after ${LATENCY_WARM_UP_SECONDS} s at that rate) | ${percentile(latencies, 50).toFixed(0)} ms | — |`)
    console.log(`| event-to-issue p99 at ${rate}/s | ${percentile(latencies, 99).toFixed(0)} ms (from the ingress's receipt: p50 ${percentile(inService, 50).toFixed(0)} ms, p99 ${percentile(inService, 99).toFixed(0)} ms) | < 1,000 ms |`)
    console.log(`| checks | ${queued} stream entries for ${acceptedRequests} accepted events (${(acceptedRequests / Math.max(1, queued)).toFixed(1)} per entry; ${non2xx} non-2xx); ${latencies.length}/${rate * latencySeconds} latency events stored${failures.size > 0 ? ` (failed sends: ${[...failures].map(([why, n]) => `${n} ${why}`).join(', ')})` : ''} | |`)
  } finally {
    for (const proc of children) await stopChild(proc)
    for (const cleanup of cleanups) cleanup()
    const leftovers = await redis.keys(`${prefix}*`)
    if (leftovers.length > 0) await redis.del(...leftovers)
    redis.disconnect()
    await db.close()
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  }
}

await main()
