/**
 * The time of one matching decision with 10,000 known problems in the environment: seeds them
 * (random unit vectors, each with its friction-kind issue, all on one screen), then decides about
 * 300 findings one after another, half a second sighting of a seeded problem's control (they join
 * it) and half anywhere (they open one), and prints the p50, p99 and slowest decision. The
 * findings carry their vectors already: this is the lock, the shortlist through the screen and
 * HNSW indexes and the writes, not the embeddings provider.
 *
 * `node --import tsx bench/match/decision.ts` runs it alone on a scratch database of
 * BENCH_DATABASE_URL's server (default: a throwaway PostgreSQL, as `npm test` starts one);
 * bench/match.ts calls benchMatchDecision beside the embeddings figures.
 */
import { randomBytes } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import { createDb } from '../../shared/db/index.js'
import { migrate } from '../../shared/db/migrate.js'
import { createOrm } from '../../shared/db/orm.js'
import { EMBEDDING_DIMENSIONS } from '../../shared/plugins/embeddings-types.js'
import { matchFinding } from '../../services/matcher/match/index.js'
import { addFinding, addProject, addRandomTickets } from '../../test/helpers/investigation/matching-fixtures.js'
import { MATCHER_ENTITIES } from '../../services/matcher/store/entities.js'
import { startPostgres } from '../../scripts/throwaway-services.mjs'

export interface MatchDecisionOptions {
  /** A PostgreSQL server with pgvector; the bench makes a scratch database on it and drops it after. */
  serverUrl: string
  tickets?: number
  findings?: number
  /** Where the lines go (console.log by default). */
  print?: (line: string) => void
}

export interface MatchDecisionResult {
  tickets: number
  findings: number
  joined: number
  created: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  seedSeconds: number
}

/** Seeds the tickets, times one decision per finding, prints and answers the figures. */
export async function benchMatchDecision(options: MatchDecisionOptions): Promise<MatchDecisionResult> {
  const tickets = options.tickets ?? 10_000
  const findings = options.findings ?? 300
  const print = options.print ?? ((line: string) => console.log(line))
  const name = `svc_bench_match_${randomBytes(5).toString('hex')}`
  const admin = new pg.Client({ connectionString: options.serverUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(options.serverUrl)
  url.pathname = `/${name}`
  const db = createDb(url.toString(), { max: 4 })
  try {
    await migrate(db)
    const orm = await createOrm(db, MATCHER_ENTITIES)
    try {
      const { projectId, production } = await addProject(db)
      const seedStart = performance.now()
      await addRandomTickets(db, { projectId, environmentId: production, count: tickets })
      const seedSeconds = (performance.now() - seedStart) / 1000
      const { rows } = await db.query<{ embedding: string; page: string; target: string }>('SELECT embedding::text AS embedding, page, target FROM tickets ORDER BY random() LIMIT $1', [Math.ceil(findings / 2)])
      // A second sighting of a seeded problem: its control (its page's screen, its one name) and a vector near its own.
      const near = rows.map((row) => ({ embedding: nudged(JSON.parse(row.embedding) as number[]), page: row.page, target: row.target, names: [row.target] }))
      const times: number[] = []
      let joined = 0
      for (let i = 0; i < findings; i++) {
        const seen = i % 2 === 0 ? near[i / 2] : undefined
        // Anywhere: a screen of its own (letters, not an id the screen would fold).
        const id = await addFinding(db, { projectId, environmentId: production, ...(seen ?? { embedding: randomUnit(), page: `/page-${lettersOf(i)}` }) })
        const start = performance.now()
        const decision = await matchFinding({ orm }, id, undefined)
        times.push(performance.now() - start)
        if (decision?.decision === 'joined') joined++
      }
      times.sort((a, b) => a - b)
      const at = (q: number): number => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]!
      const result = { tickets, findings, joined, created: findings - joined, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: times[times.length - 1]!, seedSeconds }
      const count = (n: number): string => n.toLocaleString('en-US')
      print(`matching decision: ${count(tickets)} known problems in one environment (seeded in ${seedSeconds.toFixed(1)} s), ${count(findings)} findings decided one after another`)
      print(`  one decision: p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms, max ${result.maxMs.toFixed(1)} ms (${joined} joined, ${result.created} created; vectors stored, no provider call)`)
      return result
    } finally {
      await orm.close()
    }
  } finally {
    await db.close()
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  }
}

/** i's digits as letters (12 → bc). */
function lettersOf(i: number): string {
  return String(i).replace(/\d/g, (digit) => 'abcdefghij'[Number(digit)]!)
}

/** A unit vector in a random direction. */
function randomUnit(): number[] {
  const vector = Array.from({ length: EMBEDDING_DIMENSIONS }, () => Math.random() - 0.5)
  const norm = Math.hypot(...vector)
  return vector.map((value) => value / norm)
}

/** vector moved a little (well within the join distance), as a second sighting of one problem reads. */
function nudged(vector: number[]): number[] {
  const noise = randomUnit()
  const moved = vector.map((value, i) => value + 0.2 * noise[i]!)
  const norm = Math.hypot(...moved)
  return moved.map((value) => value / norm)
}

/**
 * Runs benchMatchDecision on BENCH_DATABASE_URL's server, or on a throwaway PostgreSQL started for
 * it and stopped after; answers the lines it printed (bench/match.ts's part).
 */
export async function runMatchDecisionBench(): Promise<string[]> {
  const lines: string[] = []
  const cleanups: Array<() => Promise<void>> = []
  try {
    const serverUrl = process.env.BENCH_DATABASE_URL ?? (await startPostgres((fn: () => Promise<void>) => void cleanups.push(fn)))
    await benchMatchDecision({ serverUrl, print: (line) => lines.push(line) })
    return lines
  } finally {
    for (const fn of cleanups.reverse()) await fn()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of await runMatchDecisionBench()) console.log(line)
}
