/**
 * Runs the investigator over the fixture's bugs in the investigation harness (test/helpers/): the
 * real stack, the fixture repository on the loopback GitHub, and either the scripted model server
 * or a given (real) model plugin. Each bug is sent by two users, as admission needs (a bug whose
 * stack has none of the app's code is expected to stay new, with admission's note), one bug at a
 * time so each one's wall time is its own, and read back from the investigator's records.
 * Imported only after eval-services.ts has set TEST_DATABASE_URL / TEST_REDIS_URL.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Db } from '../../shared/db/index.js'
import type { ModelPlugin } from '../../shared/plugins/model-types.js'
import { Investigation, InvestigationCitation, InvestigationOutcome } from '../../services/investigator/store/entities.js'
import type { FixtureBug } from '../../test/helpers/investigation/investigate-fixture.js'
import { MODEL_KEY, startHarness, type HarnessTeardown } from '../../test/helpers/investigation/investigation-harness.js'

export const BUGS: ReadonlyArray<FixtureBug['key']> = ['app', 'third_party', 'not_in_repo']
/** The run's budgets a user may set for a real model; admission's thresholds stay the harness's. */
const BUDGET_VARIABLES = ['INVESTIGATION_MAX_TURNS', 'INVESTIGATION_MAX_TOKENS', 'INVESTIGATION_MAX_SECONDS', 'INVESTIGATION_PROJECT_DAILY_TOKENS']
const SCRIPTED_TIMEOUT_MS = 60_000
/** A real model's run may take its whole budget; the investigator stops it there, this is a backstop. */
const REAL_MARGIN_MS = 120_000

/** What the investigation concluded, as its records say. */
export interface Actual {
  /** The issue's state; when the run did not finish in time, the state it was left in. */
  state: string
  finished: boolean
  reasonCode: string
  citations: Array<{ path: string; line: number }>
  cause: { kind: string; name: string } | null
}

export interface BugResult {
  key: FixtureBug['key']
  expected: FixtureBug['expected']
  actual: Actual
  model: string
  turns: number
  inputTokens: number
  outputTokens: number
  wallMs: number
}

export interface EvalRun {
  results: BugResult[]
  /** Invariant violations over the database after every run (none expected). */
  violations: string[]
}

/**
 * Starts the harness (torn down with teardowns) and investigates each bug in turn; onSecret hears
 * each key or token the harness made as soon as it exists, so nothing printed after can carry it.
 */
export async function runEval(teardowns: HarnessTeardown, modelPlugin: ModelPlugin | undefined, onSecret: (secret: string) => void): Promise<EvalRun> {
  onSecret(MODEL_KEY)
  const env = Object.fromEntries(BUDGET_VARIABLES.flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : [])))
  const h = await startHarness(teardowns, { env, modelPlugin })
  for (const secret of [h.token, h.stack.ingestKey]) onSecret(secret)
  const timeoutMs = modelPlugin ? h.stack.config.investigations.maxRunMs + REAL_MARGIN_MS : SCRIPTED_TIMEOUT_MS
  const results: BugResult[] = []
  for (const key of BUGS) {
    const started = performance.now()
    const issueId = await h.send(key, 2)
    let finished = true
    try {
      // A stack without the app's own code is never investigated: admission's note is the outcome.
      if (h.fixture.bugs[key].expected.outcome === 'new') await h.notInvestigated(issueId, timeoutMs)
      else await h.settle(issueId, timeoutMs)
    } catch (error) {
      if (!/condition not met/.test((error as Error).message)) throw error
      finished = false
    }
    const wallMs = performance.now() - started
    results.push({ key, expected: h.fixture.bugs[key].expected, wallMs, ...(await readBack(h.orm.em.fork() as EntityManager, h.stack.db, issueId, finished)) })
  }
  const violations = (await h.violations()).map((violation) => JSON.stringify(violation))
  return { results, violations }
}

async function readIssue(db: Db, issueId: string): Promise<{ status: string; reason_code: string }> {
  const { rows } = await db.query<{ status: string; reason_code: string }>('SELECT status, reason_code FROM issues WHERE id = $1', [issueId])
  if (!rows[0]) throw new Error(`issue ${issueId} is gone`)
  return rows[0]
}

/** The issue's latest investigation: its state, outcome, citations and usage. */
async function readBack(em: EntityManager, db: Db, issueId: string, finished: boolean): Promise<Omit<BugResult, 'key' | 'expected' | 'wallMs'>> {
  const issue = await readIssue(db, issueId)
  const note = (await db.query<{ code: string }>('SELECT code FROM issue_admission_notes WHERE issue_id = $1', [issueId])).rows[0]
  const run = await em.findOne(Investigation, { issueId }, { orderBy: { createdAt: 'desc' } })
  const outcome = run ? await em.findOne(InvestigationOutcome, { investigationId: run.id }) : null
  const citations = run ? await em.find(InvestigationCitation, { investigationId: run.id }, { orderBy: { id: 'asc' } }) : []
  const actual: Actual = {
    // The investigation's outcome is what is evaluated; the issue goes on to its fix after investigated.
    state: run && finished ? run.state : issue.status,
    finished,
    reasonCode: outcome ? outcome.reasonCode : issue.status === 'new' ? (note?.code ?? '') : issue.reason_code,
    citations: citations.map((citation) => ({ path: citation.path, line: citation.lineStart })),
    cause: outcome?.cause ? { kind: outcome.cause.kind, name: outcome.cause.name } : null,
  }
  return { actual, model: run?.model ?? '', turns: run?.turns ?? 0, inputTokens: run?.inputTokens ?? 0, outputTokens: run?.outputTokens ?? 0 }
}
