/**
 * The matching corpus through the matcher as it runs: every recorded session of
 * test/fixtures/matching-corpus is stored as the recorder leaves a recording (rows, and gzipped
 * chunks in a filesystem object store), closed, scanned by the scan itself and its findings matched
 * with the local embedder, one recording after another in the order the sessions came. Then every
 * known problem is checked, as a confirm job checks, against every recording of its screens. Each
 * finding is told its ground truth from what its shopper did at that moment (the corpus's actions);
 * match-corpus-score.ts scores the decisions against it. Used by the corpus test and bench:match.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import { createDb, type Db } from '../../shared/db/index.js'
import { createLogger } from '../../shared/log.js'
import { migrate } from '../../shared/db/migrate.js'
import { createObjectStore } from '../../shared/object-store.js'
import { createOrm, type Orm } from '../../shared/db/orm.js'
import embeddingsLocal from '../../plugins/embeddings-local/index.js'
import { scanRecording } from '../../services/matcher/friction/scan-recording.js'
import { matchFinding, type Embedder } from '../../services/matcher/match/index.js'
import { addProject } from '../../test/helpers/investigation/matching-fixtures.js'
import { judgeRecording, type Verdict } from '../../services/matcher/confirm/index.js'
import { getTicketForChecks } from '../../services/matcher/confirm/check-store.js'
import { seedRecording } from '../../test/helpers/browser/recording-fixture.js'
import { MATCHER_ENTITIES } from '../../services/matcher/store/entities.js'
import { startPostgres } from '../../scripts/throwaway-services.mjs'
import { loadCorpus, problemOf, type CorpusRecording } from '../../test/fixtures/matching-corpus/corpus.js'
import { formatScore, scoreMatching } from './corpus-score.js'

/** One finding the scan made, with its ground truth and what matching decided. */
export interface CorpusDecision {
  /** `<session>.<n>`: the session's number and the finding's place among its findings, from 1. */
  key: string
  /** The problem its shopper showed at that moment (corpus.ts problemOf); undefined when no action accounts for it. */
  problem: string | undefined
  kind: string
  page: string
  target: string
  decision: 'joined' | 'created' | 'not_a_problem'
  /** The key of the finding that opened the known problem it joined or opened. */
  ticket: string | undefined
  distance: number | null
}

/** One check: a known problem (by the key of its first finding) judged on a recording (by session). */
export interface CorpusCheck {
  ticket: string
  session: number
  verdict: Verdict | 'not_judged'
}

export interface CorpusRun {
  decisions: CorpusDecision[]
  checks: CorpusCheck[]
  /** Each session's problems (what its findings should show), to judge the checks by. */
  shown: Map<number, Set<string>>
}

/** What the run needs: a migrated database (and its ORM) with no project of the corpus yet; the local embedder by default. */
export interface CorpusDeps {
  db: Db
  orm: Orm
  embedder?: Embedder
}

/** Runs the corpus through scan, match and checks; answers every decision and check. */
export async function runMatchingCorpus(deps: CorpusDeps, corpus: readonly CorpusRecording[]): Promise<CorpusRun> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-matching-corpus-'))
  try {
    const objects = await createObjectStore({ kind: 'fs', dir, s3: undefined })
    const log = createLogger('error')
    const embedder = deps.embedder ?? (await embeddingsLocal.create({}, { log }))
    const { projectId } = await addProject(deps.db)
    const run: CorpusRun = { decisions: [], checks: [], shown: new Map() }
    const keyOfFinding = new Map<string, string>()
    const keyOfTicket = new Map<string, string>()
    const sessionOf = new Map<string, number>()
    for (const recording of corpus) {
      const id = await seedRecording(deps.db, objects, {
        projectId,
        id: recording.recording_id,
        user: { id: recording.user },
        release: recording.release,
        sessionId: `session-${recording.session}`,
        chunks: new Map(recording.chunks.map((chunk) => [chunk.seq, chunk.events as never])),
        closed: true,
      })
      sessionOf.set(id, recording.session)
      run.shown.set(recording.session, new Set(recording.actions.map(problemOf).filter((problem): problem is string => problem !== undefined)))
      const scan = await scanRecording({ db: deps.db, objects, log }, projectId, id)
      if (scan.status !== 'scanned') throw new Error(`session ${recording.session} was not scanned`)
      const { rows } = await deps.db.query<{ id: string; kind: string; page: string; target: string; at: Date }>('SELECT id, kind, page, target, at FROM friction_findings WHERE project_id = $1 AND recording_id = $2 ORDER BY at, kind', [projectId, id])
      for (const [i, finding] of rows.entries()) {
        const key = `${recording.session}.${i + 1}`
        keyOfFinding.set(finding.id, key)
        const action = recording.actions.find((one) => one.from <= finding.at.getTime() && finding.at.getTime() <= one.to)
        const decision = await matchFinding({ orm: deps.orm }, finding.id, embedder)
        if (!decision) throw new Error(`finding ${key} is gone`)
        if (decision.decision === 'created' && decision.ticket) keyOfTicket.set(decision.ticket.id, key)
        const ticket = decision.ticket ? keyOfTicket.get(decision.ticket.id) : undefined
        run.decisions.push({ key, problem: action && problemOf(action), kind: finding.kind, page: finding.page, target: finding.target, decision: decision.decision, ticket, distance: decision.distance })
      }
    }
    for (const [ticketId, ticketKey] of keyOfTicket) {
      const ticket = (await getTicketForChecks(deps.db, ticketId))!
      const { rows } = await deps.db.query<{ id: string }>('SELECT id FROM recordings WHERE project_id = $1 AND pages && $2::text[] ORDER BY started_at, id', [projectId, ticket.pages])
      for (const { id } of rows) {
        const verdict = await judgeRecording({ db: deps.db, objects, log }, ticket, id, [])
        run.checks.push({ ticket: ticketKey, session: sessionOf.get(id)!, verdict: verdict ?? 'not_judged' })
      }
    }
    return run
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Runs work on a migrated scratch database of BENCH_DATABASE_URL's server (or of a throwaway
 * PostgreSQL started for it), dropped after: for bench:match and for writing the golden file.
 */
export async function withScratchDatabase<T>(work: (deps: CorpusDeps) => Promise<T>): Promise<T> {
  const cleanups: Array<() => Promise<void>> = []
  try {
    const serverUrl = process.env.BENCH_DATABASE_URL ?? (await startPostgres((fn: () => Promise<void>) => void cleanups.push(fn)))
    const name = `svc_bench_corpus_${randomBytes(5).toString('hex')}`
    const admin = new pg.Client({ connectionString: serverUrl })
    await admin.connect()
    cleanups.push(async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    })
    await admin.query(`CREATE DATABASE ${name}`)
    const url = new URL(serverUrl)
    url.pathname = `/${name}`
    const db = createDb(url.toString(), { max: 4 })
    cleanups.push(() => db.close())
    await migrate(db)
    const orm = await createOrm(db, MATCHER_ENTITIES)
    cleanups.push(() => orm.close())
    return await work({ db, orm })
  } finally {
    for (const fn of cleanups.reverse()) await fn()
  }
}

/** bench:match's part: the corpus run and scored; answers the lines to print. */
export async function runMatchCorpusBench(): Promise<string[]> {
  const corpus = loadCorpus()
  return withScratchDatabase(async (deps) => formatScore(scoreMatching(await runMatchingCorpus(deps, corpus)), corpus.length))
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of await runMatchCorpusBench()) console.log(line)
}
