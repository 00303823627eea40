/**
 * npm run bench:ingest: the ingestion spine measured side by side in one run on this machine,
 * against real PostgreSQL and Redis:
 *   1. raw ceiling: a bare uWebSockets.js route answering 202 to a 2 KB POST (wrk);
 *   2. accepted: the real ingress (auth, validation, rate-limit Lua, XADD) with 2 KB events (wrk),
 *      the same events as Sentry envelopes at the Sentry route (bench/load/envelope-load.ts);
 *      and recording chunks of about 100 KB of rrweb-like JSON, gzipped (bench/load/recording-load.ts),
 *      each stored in the object store (a local folder here) and put on the recordings stream;
 *   3. event-to-issue latency at 1,000 events/s through ingress and worker, with the grouper alone
 *      and with every actor;
 *   4. drained: a pre-filled events stream grouped and stored by one worker process with the
 *      grouper alone and with every actor, and by two with every actor on the same Redis and
 *      PostgreSQL (bench/load/drain.ts), clock stopped when every event is in PostgreSQL and the group
 *      has nothing left.
 * Raw and accepted take the same load (1,000 distinct realistic events, bench/load/wrk.ts), after a
 * warm-up each, in alternating rounds, so a machine that drifts during the run moves both alike;
 * the medians are compared. Servers run as child processes so the load generator does not share
 * their event loop. Uses BENCH_DATABASE_URL / BENCH_REDIS_URL, else the machine's local servers; a
 * scratch database and key prefix are created and removed.
 */
import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { SERVICE_NAMES } from '../shared/config/index.js'
import { createDb, type Db } from '../shared/db/index.js'
import { migrate } from '../shared/db/migrate.js'
import { createRedis, streamKeys } from '../shared/redis.js'
import { applySeed, SEED_INGEST_KEY, SEED_PROJECT_ID } from '../shared/db/seed.js'
import { child, startIngressChild, stopChild, SVC, waitHttp } from './load/children.js'
import { measureDrain, type Drained } from './load/drain.js'
import { cpuMicros } from './load/process-tree.js'
import { realisticEvent } from './load/events.js'
import { envelopeRows, runEnvelopeRound, writeEnvelopeLoad, type EnvelopeRound } from './load/envelope-load.js'
import { pacedPost } from './load/paced-post.js'
import { measureStages } from './load/stages.js'
import { writeRecordingLoad } from './load/recording-load.js'
import { median, percentile } from './load/stats.js'
import { acceptedOf, requireWrk, runWrk, writeLoads, type WrkResult } from './load/wrk.js'

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const WARM_UP_SECONDS = 3
const LATENCY_WARM_UP_SECONDS = 5
const DRAIN_EVENTS = Number(process.env.BENCH_DRAIN_EVENTS ?? 100_000)
const DRAIN_ROUNDS = Number(process.env.BENCH_DRAIN_ROUNDS ?? 2)
/** BENCH_ONLY=accept: parts 1 and 2 alone (raw against accepted events and envelopes), for the accept paths' own work. */
const ONLY_ACCEPT = process.env.BENCH_ONLY === 'accept'
const INGRESS_PORT = 18_082
const RAW_PORT = 18_083
const WORKER_HEALTH_PORT = 18_081
const INGRESS_THREADS = process.env.BENCH_INGRESS_THREADS ?? String(availableParallelism())
/** A wrk run skipped (BENCH_ONLY). */
const NO_RUN: WrkResult = { rps: 0, requests: 0, non2xx: 0 }
/** Distinct recording chunks the load cycles through. */
const RECORDING_CHUNKS = 200

/**
 * The worker's actors in each setup measured: the grouper alone, and every actor: svc worker's
 * default set, read from the code (SVC_SERVICES unset or "all" runs SERVICE_NAMES).
 */
const SERVICES = { grouper: 'grouper', all: SERVICE_NAMES.join(',') } as const
type Setup = keyof typeof SERVICES
const SETUPS: readonly Setup[] = ['grouper', 'all']

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
  const objectDir = mkdtempSync(join(tmpdir(), 'svc-bench-objects-'))
  const env = {
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    INGESTION_PORT: String(INGRESS_PORT),
    WORKER_HEALTH_PORT: '0',
    SVC_EVENTS_PER_KEY_PER_MINUTE: '100000000',
    SVC_EVENTS_BACKLOG_LIMIT: '100000000',
    SVC_RECORDING_CHUNKS_PER_MINUTE: '100000000',
    SVC_RECORDING_MB_PER_MINUTE: '100000000',
    SVC_OBJECT_DIR: objectDir,
    SVC_INGRESS_THREADS: INGRESS_THREADS,
    LOG_LEVEL: 'error',
  }
  const children: ChildProcess[] = []
  const cleanups: Array<() => void> = [() => rmSync(objectDir, { recursive: true, force: true })]
  try {
    await migrate(db)
    await applySeed(db)
    const bodies = Array.from({ length: 1000 }, (_, i) => JSON.stringify(realisticEvent(i * 7)))
    const loads = writeLoads(bodies, { 'Content-Type': 'application/json', 'X-API-Key': SEED_INGEST_KEY })
    cleanups.push(loads.remove)
    const envelopes = await writeEnvelopeLoad(db, `http://127.0.0.1:${INGRESS_PORT}`, SEED_PROJECT_ID, SEED_INGEST_KEY, bodies.map((_, i) => i * 7))
    cleanups.push(envelopes.remove)
    const recordingLoad = writeRecordingLoad(RECORDING_CHUNKS, { 'Content-Type': 'application/json', 'X-API-Key': SEED_INGEST_KEY })
    cleanups.push(recordingLoad.remove)
    console.log(`event bodies: 1,000 distinct, about ${Buffer.byteLength(bodies[0]!)} bytes each; load: wrk -t1 -c64, ${ROUNDS} rounds of ${SECONDS} s per server after a ${WARM_UP_SECONDS} s warm-up; machine: ${availableParallelism()} cores; ingress threads: ${INGRESS_THREADS}`)

    // 1 and 2. The bare route and the real ingress (no worker competing for the cores), both up
    // and warmed, then measured in alternating rounds under the same load.
    const raw = child(['--import', 'tsx', fileURLToPath(new URL('./load/raw-uws.ts', import.meta.url)), String(RAW_PORT)], {})
    children.push(raw)
    await waitHttp(`http://127.0.0.1:${RAW_PORT}/`, { method: 'POST', body: '{}' })
    const ingress = await startIngressChild(env)
    children.push(ingress)
    const rawUrl = `http://127.0.0.1:${RAW_PORT}/api/v1/events`
    const ingressUrl = `http://127.0.0.1:${INGRESS_PORT}/api/v1/events`
    runWrk(rawUrl, loads.varied, WARM_UP_SECONDS)
    runWrk(ingressUrl, loads.varied, WARM_UP_SECONDS)
    runWrk(envelopes.url, envelopes.script, WARM_UP_SECONDS)
    const recordingsUrl = `http://127.0.0.1:${INGRESS_PORT}/api/v1/recordings`
    if (!ONLY_ACCEPT) runWrk(recordingsUrl, recordingLoad.script, WARM_UP_SECONDS)
    const recordingsBefore = await redis.xlen(keys.recordings)
    const rounds: Array<{ raw: WrkResult; repeated: WrkResult; accepted: WrkResult; chunks: WrkResult }> = []
    const envelopeRounds: EnvelopeRound[] = []
    // CPU time each server, and Redis, used per request over the measured rounds: unlike a rate,
    // it hardly moves when other work shares the machine. Redis tells its own (INFO cpu), wherever it runs.
    const redisCpu = async (): Promise<number> => {
      const info = await redis.info('cpu')
      return 1e6 * (Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1]) + Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1]))
    }
    const cpu = { raw: 0, ingress: 0, redis: 0 }
    for (let r = 0; r < ROUNDS; r++) {
      let before = cpuMicros(raw.pid!)
      const rawRound = runWrk(rawUrl, loads.varied, SECONDS)
      cpu.raw += cpuMicros(raw.pid!) - before
      before = cpuMicros(ingress.pid!)
      const redisBefore = await redisCpu()
      const accepted = runWrk(ingressUrl, loads.varied, SECONDS)
      cpu.ingress += cpuMicros(ingress.pid!) - before
      cpu.redis += (await redisCpu()) - redisBefore
      envelopeRounds.push(await runEnvelopeRound(envelopes, redis, keys.events, ingress.pid!, SECONDS))
      rounds.push({ raw: rawRound, accepted, repeated: ONLY_ACCEPT ? NO_RUN : runWrk(rawUrl, loads.repeated, SECONDS), chunks: ONLY_ACCEPT ? NO_RUN : runWrk(recordingsUrl, recordingLoad.script, SECONDS) })
    }
    const rawRps = median(rounds.map((r) => r.raw.rps))
    const repeatedRps = median(rounds.map((r) => r.repeated.rps))
    const acceptedRps = median(rounds.map((r) => acceptedOf(r.accepted)))
    const non2xx = rounds.reduce((sum, r) => sum + r.accepted.non2xx, 0)
    const acceptedRequests = rounds.reduce((sum, r) => sum + r.accepted.requests, 0) - non2xx
    const queued = (await redis.xlen(keys.events)) - envelopeRounds.reduce((sum, r) => sum + r.entries, 0)
    const chunksRps = median(rounds.map((r) => acceptedOf(r.chunks)))
    const chunksNon2xx = rounds.reduce((sum, r) => sum + r.chunks.non2xx, 0)
    const chunksAccepted = rounds.reduce((sum, r) => sum + r.chunks.requests, 0) - chunksNon2xx
    const chunkEntries = (await redis.xlen(keys.recordings)) - recordingsBefore
    await stopChild(raw)
    await stopChild(ingress)
    await redis.del(keys.events, keys.recordings, keys.recordingPuts)
    await db.query('TRUNCATE events, event_receipts, issue_actors, issues CASCADE')
    const each = (pick: (r: (typeof rounds)[number]) => number): string => rounds.map((r) => pick(r).toFixed(0)).join(', ')
    const percent = (x: number): string => `${(x * 100).toFixed(1)}%`
    console.log('')
    console.log('| figure | value (median of the rounds; each round) | target |')
    console.log('|---|---|---|')
    console.log(`| raw ceiling (bare uWS route, 202) | ${rawRps.toFixed(0)} req/s (${each((r) => r.raw.rps)}) | — |`)
    console.log(`| accepted by the ingress (2 KB events) | ${acceptedRps.toFixed(0)} events/s (${each((r) => acceptedOf(r.accepted))}) | ≥ 40% of raw |`)
    console.log(`| accepted / raw | ${percent(acceptedRps / rawRps)} (${rounds.map((r) => percent(acceptedOf(r.accepted) / r.raw.rps)).join(', ')}) | ≥ 40% |`)
    envelopeRows(envelopes, envelopeRounds, rounds.map((r) => acceptedOf(r.accepted)), cpu.ingress / (acceptedRequests + non2xx)).forEach((row) => console.log(row))
    const rawRequests = rounds.reduce((sum, r) => sum + r.raw.requests, 0)
    console.log(`| CPU used per request over the rounds (/proc: user and system, every thread) | raw route ${(cpu.raw / rawRequests).toFixed(1)} µs; ingress ${(cpu.ingress / (acceptedRequests + non2xx)).toFixed(1)} µs and Redis ${(cpu.redis / (acceptedRequests + non2xx)).toFixed(1)} µs per events request | — |`)
    // Where an accepted event's time goes: each stage timed on its own in this process, with the
    // servers stopped, over the same bodies and packs as large as the accepted rounds made.
    const split = await measureStages(bodies, acceptedRequests / Math.max(1, queued), redis, keys)
    const staged = split.perEvent.slice(0, split.ingressStages).reduce((sum, [, us]) => sum + us, 0)
    console.log(`| raw route per request (its one thread's second over its rate, wrk on the other core) | ${(1e6 / rawRps).toFixed(1)} µs | — |`)
    console.log(`| accepted event per request (the ingress threads' seconds over their rate) | ${((1e6 * Number(INGRESS_THREADS)) / acceptedRps).toFixed(1)} µs (${INGRESS_THREADS} threads) | — |`)
    split.perEvent.forEach(([stage, us], i) => console.log(`| stage: ${stage} | ${us.toFixed(1)} µs an event${i < split.ingressStages ? ` (${percent(us / staged)} of the ingress's CPU stages)` : ''} | — |`))
    if (ONLY_ACCEPT) {
      console.log(`| checks | ${queued} stream entries for ${acceptedRequests} accepted events (${(acceptedRequests / Math.max(1, queued)).toFixed(1)} per entry; ${non2xx} non-2xx) | |`)
      return
    }

    // 3. event-to-issue latency at 1,000 events/s through the ingress and a worker, on a quiet
    // database: measured after the drain, it also timed the checkpoint and autovacuum that a
    // hundred thousand fresh rows set off. Once with the grouper alone and once with every actor
    // (the investigator's admission reads what the grouper writes), so what the others cost shows.
    const rate = 1000
    const latencySeconds = 10
    const latency: Record<Setup, { latencies: number[]; inService: number[]; failures: Map<string, number> }> = {} as never
    for (const setup of SETUPS) {
      const worker = child([SVC, 'worker'], { ...env, SVC_SERVICES: SERVICES[setup], WORKER_HEALTH_PORT: String(WORKER_HEALTH_PORT) })
      children.push(worker)
      await waitHttp(`http://127.0.0.1:${WORKER_HEALTH_PORT}/health`)
      const ingress2 = await startIngressChild(env)
      children.push(ingress2)
      latency[setup] = await measureLatency(db, rate, LATENCY_WARM_UP_SECONDS, latencySeconds)
      await stopChild(ingress2)
      await stopChild(worker)
      await redis.del(keys.events)
      await db.query('TRUNCATE events, event_receipts, issue_actors, issues CASCADE')
    }

    // 4. drained: pre-fill the stream with varied events, packed as the ingress packs them (as many
    // per entry as the accepted rounds averaged), then time fresh worker processes draining it: one
    // with the grouper alone, one with every actor, then two with every actor on the same Redis
    // and PostgreSQL, in alternating rounds (this machine drifts).
    const drainSetup = { db, redis, stream: keys.events, env, events: DRAIN_EVENTS, perEntry: Math.max(1, Math.round(acceptedRequests / Math.max(1, queued))), healthPort: WORKER_HEALTH_PORT }
    const drains: Record<'grouper' | 'all' | 'all2', Drained[]> = { grouper: [], all: [], all2: [] }
    for (let r = 0; r < DRAIN_ROUNDS; r++) {
      drains.grouper.push(await measureDrain({ ...drainSetup, env: { ...env, SVC_SERVICES: SERVICES.grouper } }, 1))
      drains.all.push(await measureDrain({ ...drainSetup, env: { ...env, SVC_SERVICES: SERVICES.all } }, 1))
      drains.all2.push(await measureDrain({ ...drainSetup, env: { ...env, SVC_SERVICES: SERVICES.all } }, 2))
    }
    const drainRate = (which: keyof typeof drains): number => median(drains[which].map((d) => d.eventsPerSecond))
    const drainRounds = (which: keyof typeof drains): string => drains[which].map((d) => `${d.eventsPerSecond.toFixed(0)} in ${d.seconds.toFixed(1)} s`).join(', ')

    const mb = (bytes: number): string => (bytes / 1e6).toFixed(1)
    console.log(`| accepted recording chunks (${(recordingLoad.rawBytes / 1024).toFixed(0)} KB of rrweb-like JSON, ${(recordingLoad.wireBytes / 1024).toFixed(0)} KB gzipped; object store: a local folder) | ${chunksRps.toFixed(0)} chunks/s (${each((r) => acceptedOf(r.chunks))}): ${mb(chunksRps * recordingLoad.rawBytes)} MB/s decompressed, ${mb(chunksRps * recordingLoad.wireBytes)} MB/s on the wire | — |`)
    console.log(`| raw ceiling with one body repeated (wrk's static request, as earlier runs measured) | ${repeatedRps.toFixed(0)} req/s (${each((r) => r.repeated.rps)}); accepted is ${percent(acceptedRps / repeatedRps)} of it | — |`)
    const p = (which: Setup, q: number): number => percentile(latency[which].latencies, q)
    const pIn = (which: Setup, q: number): number => percentile(latency[which].inService, q)
    console.log(`| drained (grouped and stored, stream empty), one worker, grouper alone | ${drainRate('grouper').toFixed(0)} events/s (${drainRounds('grouper')}; ${DRAIN_EVENTS} events, ${drains.grouper[0]!.issues} issues) | — |`)
    console.log(`| drained by one worker with every actor (${SERVICES.all}) | ${drainRate('all').toFixed(0)} events/s (${drainRounds('all')}); ${percent(drainRate('all') / drainRate('grouper'))} of the grouper alone, ${percent(drainRate('all') / rawRps)} of raw | ≥ 5,000 events/s where raw is 62–66k (≥ 7.8% of raw) |`)
    console.log(`| drained by two workers with every actor on the same Redis and PostgreSQL | ${drainRate('all2').toFixed(0)} events/s (${drainRounds('all2')}); ${(drainRate('all2') / drainRate('all')).toFixed(2)}× one | — |`)
    for (const setup of SETUPS) {
      console.log(`| event-to-issue at ${rate}/s (after ${LATENCY_WARM_UP_SECONDS} s at that rate), ${setup === 'grouper' ? 'grouper alone' : 'every actor'} | p50 ${p(setup, 50).toFixed(0)} ms, p99 ${p(setup, 99).toFixed(0)} ms (from the ingress's receipt: p50 ${pIn(setup, 50).toFixed(0)} ms, p99 ${pIn(setup, 99).toFixed(0)} ms) | p99 < 100 ms |`)
    }
    // A chunk in flight when wrk stops is still stored (up to 64 per run), though nobody reads its 202.
    console.log(`| checks | ${chunkEntries} recording stream entries for ${chunksAccepted} chunks answered 202 (${chunksNon2xx} non-2xx; up to 64 more entries per wrk run: chunks in flight when it stopped); ${queued} stream entries for ${acceptedRequests} accepted events (${(acceptedRequests / Math.max(1, queued)).toFixed(1)} per entry; ${non2xx} non-2xx); ${SETUPS.map((setup) => `${latency[setup].latencies.length}/${rate * latencySeconds} latency events stored (${setup})${latency[setup].failures.size > 0 ? `, failed sends: ${[...latency[setup].failures].map(([why, n]) => `${n} ${why}`).join(', ')}` : ''}`).join('; ')} | |`)
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
