/**
 * npm run bench:footprint [-- <checkout>…]: the resident memory of `svc up` on its embedded
 * defaults (nothing configured, as `npm start` runs), process by process: idle after start, at its
 * peak while 10,000 events go through the ingress, and idle again once they are stored, against
 * the 300 MB the whole tree may hold idle. Each run starts on a scratch data folder and free ports
 * and is stopped with Ctrl-C, as a person would; the events are then counted in its database.
 * Other checkouts given as arguments (a `git worktree` of an earlier commit, with node_modules) are
 * measured the same way in the same run, after this one, so the figures sit side by side.
 * With BENCH_FOOTPRINT_EXTERNAL=1, each checkout is also measured as `svc up` with DATABASE_URL and
 * REDIS_URL (its parts are then `svc worker` and `svc ingress`), on a scratch database of
 * BENCH_DATABASE_URL's server and a key prefix of BENCH_REDIS_URL (default: the local servers).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { createDb } from '../shared/db/index.js'
import { startEmbeddedPostgres } from '../shared/embedded/index.js'
import { createLogger } from '../shared/log.js'
import { createRedis } from '../shared/redis.js'
import { SEED_INGEST_KEY } from '../shared/db/seed.js'
import { realisticEvent } from './load/events.js'
import { pacedPost } from './load/paced-post.js'
import { mb, processTree, type ProcessMemory } from './load/process-tree.js'

const EVENTS = Number(process.env.BENCH_FOOTPRINT_EVENTS ?? 10_000)
const RATE = Number(process.env.BENCH_FOOTPRINT_RATE ?? 500)
/** Idle is measured this long after start-up's queues emptied: its garbage is collected by then. */
const SETTLE_MS = Number(process.env.BENCH_SETTLE_SECONDS ?? 30) * 1000
/**
 * And this long after the events' queues emptied: V8 keeps a burst's garbage until its memory
 * reducer notices the process is idle (about a minute here), then gives most of it back.
 */
const AFTER_SETTLE_MS = Number(process.env.BENCH_AFTER_SETTLE_SECONDS ?? 120) * 1000
const TARGET_MB = 300
const SAMPLE_EVERY_MS = 500
const EXTERNAL = process.env.BENCH_FOOTPRINT_EXTERNAL === '1'
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'

/** Where a run keeps its data: the environment it adds, how its events are counted, its cleanup. */
interface Setting {
  name: string
  env: Record<string, string>
  countEvents(): Promise<number>
  remove(): Promise<void>
}

const EMBEDDED = 'embedded defaults'

/** Nothing configured: a scratch data folder for PGlite and the spawned Redis. */
function embedded(): Setting {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-footprint-'))
  return {
    name: EMBEDDED,
    env: { SVC_DATA_DIR: dataDir },
    countEvents: () => countEmbeddedEvents(dataDir),
    remove: async () => rmSync(dataDir, { recursive: true, force: true }),
  }
}

/** A scratch database on BENCH_DATABASE_URL's server and a key prefix of its own on BENCH_REDIS_URL. */
async function external(): Promise<Setting> {
  const name = `svc_footprint_${randomBytes(4).toString('hex')}`
  const prefix = `svcfootprint:${randomBytes(4).toString('hex')}:`
  const admin = new pg.Client({ connectionString: ADMIN_URL })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  const databaseUrl = url.toString()
  // The object store (objectstore-fs) still keeps its files under the data folder.
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-footprint-'))
  return {
    name: 'DATABASE_URL and REDIS_URL set',
    env: { DATABASE_URL: databaseUrl, REDIS_URL, REDIS_KEY_PREFIX: prefix, SVC_DATA_DIR: dataDir },
    countEvents: async () => {
      const db = createDb(databaseUrl, { max: 1 })
      try {
        return Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]!.n)
      } finally {
        await db.close()
      }
    },
    remove: async () => {
      const redis = createRedis(REDIS_URL)
      const keys = await redis.keys(`${prefix}*`)
      if (keys.length > 0) await redis.del(...keys)
      redis.disconnect()
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

interface Phases {
  checkout: string
  setting: string
  idle: ProcessMemory[]
  /** Each process's largest RSS while the events went through, and the largest sum at one moment. */
  peak: { byName: Map<string, number>; totalKb: number }
  /** As the events' queues emptied, and AFTER_SETTLE_MS later. */
  drained: ProcessMemory[]
  after: ProcessMemory[]
  acceptSeconds: number
  drainSeconds: number
  accepted: number
  stored: number
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer().once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolvePort(port))
    })
  })
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms))

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined)
    if (value !== undefined) return value
    await sleep(250)
  }
  throw new Error(`${what} within ${timeoutMs / 1000} s`)
}

/** Resolves once every hosted service's queue is empty (the worker's /health text). */
function untilDrained(health: string, timeoutMs: number): Promise<true> {
  return until('the worker did not empty its queues', timeoutMs, async () => {
    const text = await (await fetch(health)).text()
    return /^queue_depth: eligible=0 held_back=0$/m.test(text) ? true : undefined
  })
}

/** Runs `svc up` from checkout in setting through the three phases, then stops it. */
async function measure(checkout: string, setting: Setting): Promise<Phases> {
  const [port, healthPort] = [await freePort(), await freePort()]
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    INGESTION_PORT: String(port),
    SVC_INGESTION_HOST: '127.0.0.1',
    WORKER_HEALTH_PORT: String(healthPort),
    // The load is one client with the development key: the per-key limit would refuse most of it.
    SVC_EVENTS_PER_KEY_PER_MINUTE: '100000000',
    SVC_EVENTS_BACKLOG_LIMIT: '100000000',
    LOG_LEVEL: 'warn',
  }
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'REDIS_KEY_PREFIX', 'SVC_DATA_DIR', 'NODE_OPTIONS']) delete env[name]
  Object.assign(env, setting.env)
  const up = spawn(process.execPath, [join(checkout, 'bin', 'svc.js'), 'up'], { cwd: checkout, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  up.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  up.stderr!.on('data', (chunk: Buffer) => process.stderr.write(chunk))
  const health = `http://127.0.0.1:${healthPort}/health`
  try {
    await until('svc up did not start', 180_000, async () => (up.exitCode === null ? (output.includes('svc is running') ? true : undefined) : Promise.reject(new Error('exited'))))
    await untilDrained(health, 60_000)
    await sleep(SETTLE_MS)
    const idle = processTree(up.pid!)

    const peak = { byName: new Map<string, number>(), totalKb: 0 }
    let sending = true
    const sampler = (async () => {
      while (sending) {
        const rows = processTree(up.pid!)
        peak.totalKb = Math.max(peak.totalKb, sum(rows, 'rssKb'))
        for (const row of rows) peak.byName.set(row.name, Math.max(peak.byName.get(row.name) ?? 0, row.rssKb))
        await sleep(SAMPLE_EVERY_MS)
      }
    })()
    const began = performance.now()
    const sent = await pacedPost(`http://127.0.0.1:${port}/api/v1/events`, { 'Content-Type': 'application/json', 'X-API-Key': SEED_INGEST_KEY }, RATE, EVENTS, (i) => JSON.stringify(realisticEvent(i)))
    const acceptSeconds = (performance.now() - began) / 1000
    await untilDrained(health, 600_000)
    const drainSeconds = (performance.now() - began) / 1000
    sending = false
    await sampler
    const drained = processTree(up.pid!)
    await sleep(AFTER_SETTLE_MS)
    const after = processTree(up.pid!)
    await stop(up)
    return { checkout, setting: setting.name, idle, peak, drained, after, acceptSeconds, drainSeconds, accepted: sent.answers.length, stored: await setting.countEvents() }
  } finally {
    await stop(up)
    await setting.remove()
  }
}

/** Ctrl-C, as a person stops it; killed after a minute. */
async function stop(up: ChildProcess): Promise<void> {
  if (up.exitCode !== null || up.signalCode !== null) return
  const exited = new Promise((done) => up.once('exit', done))
  up.kill('SIGINT')
  const timer = setTimeout(() => up.kill('SIGKILL'), 60_000)
  await exited
  clearTimeout(timer)
}

/** Events stored in the stopped service's embedded database. */
async function countEmbeddedEvents(dataDir: string): Promise<number> {
  const pg = await startEmbeddedPostgres({ dataDir, log: createLogger('silent') })
  const db = createDb(pg.url, { ...pg.pool })
  try {
    const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM events')
    return Number(rows[0]!.n)
  } finally {
    await db.close()
    await pg.stop()
  }
}

function sum(rows: readonly ProcessMemory[], field: 'rssKb' | 'pssKb'): number {
  return rows.reduce((total, row) => total + row[field], 0)
}

/** One table per checkout: a row per process, then the tree's sums against the target. */
function report(run: Phases): void {
  console.log(`\n### ${run.checkout}, ${run.setting}\n`)
  const events = `${EVENTS.toLocaleString('en')} events`
  console.log(`| process | pid | idle RSS (MB) | peak RSS under load | as the ${events} are stored | ${AFTER_SETTLE_MS / 1000} s later |`)
  console.log('|---|---|---|---|---|---|')
  const rssOf = (rows: ProcessMemory[], pid: number): string => {
    const row = rows.find((r) => r.pid === pid)
    return row ? mb(row.rssKb) : 'gone'
  }
  for (const row of run.idle) console.log(`| ${row.name} | ${row.pid} | ${mb(row.rssKb)} | ${mb(run.peak.byName.get(row.name) ?? 0)} | ${rssOf(run.drained, row.pid)} | ${rssOf(run.after, row.pid)} |`)
  for (const row of run.after.filter((r) => !run.idle.some((i) => i.pid === r.pid))) console.log(`| ${row.name} (new) | ${row.pid} | — | ${mb(run.peak.byName.get(row.name) ?? 0)} | ${rssOf(run.drained, row.pid)} | ${mb(row.rssKb)} |`)
  const idleMb = sum(run.idle, 'rssKb') / 1024
  // The target is npm start's: nothing configured.
  const verdict = run.setting === EMBEDDED ? ` (${idleMb < TARGET_MB ? 'under' : 'OVER'} the ${TARGET_MB} MB target)` : ''
  console.log(`| **whole tree, sum of RSS** | | **${idleMb.toFixed(1)}**${verdict} | ${mb(run.peak.totalKb)} | ${mb(sum(run.drained, 'rssKb'))} | ${mb(sum(run.after, 'rssKb'))} |`)
  console.log(`| whole tree, sum of PSS (shared pages counted once) | | ${mb(sum(run.idle, 'pssKb'))} | | ${mb(sum(run.drained, 'pssKb'))} | ${mb(sum(run.after, 'pssKb'))} |`)
  console.log(`\n${run.accepted.toLocaleString('en')} events accepted in ${run.acceptSeconds.toFixed(1)} s (sent at ${RATE}/s), all stored ${run.drainSeconds.toFixed(1)} s after the first; ${run.stored.toLocaleString('en')} in the database afterwards.`)
}

const here = fileURLToPath(new URL('..', import.meta.url))
const checkouts = [here, ...process.argv.slice(2).map((path) => resolve(path))]
console.log(`svc up on embedded defaults, fresh data folder; idle = ${SETTLE_MS / 1000} s after start-up's queues emptied; then ${EVENTS.toLocaleString('en')} realistic events at ${RATE}/s through the ingress.`)
const runs: Phases[] = []
for (const checkout of checkouts) {
  runs.push(await measure(checkout, embedded()))
  if (EXTERNAL) runs.push(await measure(checkout, await external()))
}
for (const run of runs) report(run)
if (runs.length > 1) {
  console.log(`\n| checkout, setting | idle, sum of RSS (MB) | idle, sum of PSS | ${AFTER_SETTLE_MS / 1000} s after the events, sum of RSS | events stored in |`)
  console.log('|---|---|---|---|---|')
  for (const run of runs) console.log(`| ${run.checkout}, ${run.setting} | ${mb(sum(run.idle, 'rssKb'))} | ${mb(sum(run.idle, 'pssKb'))} | ${mb(sum(run.after, 'rssKb'))} | ${run.drainSeconds.toFixed(1)} s |`)
}
