/**
 * What a session reports: the state facts (spec "State facts") and the poll answer, and each
 * step's state (the tool server reports a project's latest session's steps with stepsOf too).
 * Facts come from readProjectFacts (project-facts.ts, the one reader every face shares) each time,
 * never cached, so a held poll that is woken sees the change that woke it. has_events counts only
 * events received since the session began: an existing project's old events prove nothing about
 * the app being set up now.
 */
import type { Queryable } from '../../../shared/db/index.js'
import { projectLinks, readProjectFacts, type ProjectSetup, type SetupFacts } from './project-facts.js'
import { readDsnNumber, sentryDsn } from '../projects/dsn.js'
import { open } from './seal.js'
import { type SessionRow, type SessionStatus, type SetupDeps } from './sessions.js'

export const STEP_NAMES = ['install_sdk', 'first_event', 'codehost', 'chat', 'sourcemaps', 'mcp', 'pull_request'] as const
export type StepName = (typeof STEP_NAMES)[number]

type StepFact = 'has_events' | 'codehost_connected' | 'chat_connected' | 'sourcemaps_uploaded'

/** The step each fact marks done, when true. */
const STEP_FACTS: Partial<Record<StepName, StepFact>> = {
  first_event: 'has_events',
  codehost: 'codehost_connected',
  chat: 'chat_connected',
  sourcemaps: 'sourcemaps_uploaded',
}

/** Before approval there is no project: every fact false or empty. */
const NO_FACTS: SetupFacts = Object.freeze({
  has_events: false,
  sdk_seen: false,
  latest_error_group_url: '',
  issues_url: '',
  codehost_connected: false,
  codehost_installed: false,
  codehost_repo: '',
  codehost_repo_access: '',
  codehost_connect_url: '',
  chat_connected: false,
  chat_error: '',
  sourcemaps_uploaded: false,
})

/** The state endpoint's facts: the project's setup facts since the session began, its install link and its steps. */
export type Facts = Omit<SetupFacts, 'sdk_seen'> & {
  codehost_install_url: string
  steps: Record<StepName, StepState>
}

export interface StepState {
  status: string
  note: string
}

/** The session's setup, as the state endpoint reads it (undefined before approval). */
async function readSetup(deps: SetupDeps, session: SessionRow): Promise<ProjectSetup | undefined> {
  return session.project_id ? readProjectFacts(deps.db, deps.baseUrl, session.project_id, session.created_at) : undefined
}

/** A session as a read sees it: its status after the app_reporting move, its facts, its project's name. */
export interface SessionView {
  session: SessionRow
  facts: Facts
  projectName: string | undefined
}

/**
 * Reads a session's project once and derives everything from that read: the move to app_reporting
 * (once a browser SDK checked in, or an event arrived, after the session began) and the facts.
 */
export async function viewSession(deps: SetupDeps, session: SessionRow): Promise<SessionView> {
  const setup = await readSetup(deps, session)
  const current = await moveToAppReporting(deps, session, setup)
  return { session: current, facts: await factsOf(deps, current, setup), projectName: setup?.name }
}

/** The session with the app_reporting move applied (one project read, only while key_ok). */
export async function refreshStatus(deps: SetupDeps, session: SessionRow): Promise<SessionRow> {
  if (session.status !== 'key_ok' || !session.project_id) return session
  return moveToAppReporting(deps, session, await readSetup(deps, session))
}

async function moveToAppReporting(deps: SetupDeps, session: SessionRow, setup: ProjectSetup | undefined): Promise<SessionRow> {
  if (session.status !== 'key_ok' || !(setup?.facts.sdk_seen || setup?.facts.has_events)) return session
  await deps.db.query(`UPDATE setup_sessions SET status = 'app_reporting' WHERE id = $1 AND status = 'key_ok'`, [session.id])
  return { ...session, status: 'app_reporting' }
}

/** The steps a session recorded (progress reports, failed or skipped steps). */
export async function readRecordedSteps(db: Queryable, sessionId: string): Promise<Array<{ step: StepName; status: string; note: string }>> {
  const { rows } = await db.query<{ step: StepName; status: string; note: string }>('SELECT step, status, note FROM setup_steps WHERE session_id = $1', [sessionId])
  return rows
}

/** The latest setup session of a project (the tool server reports its steps), if any. */
export async function latestSessionOf(db: Queryable, projectId: string): Promise<{ id: string; status: SessionStatus } | undefined> {
  const { rows } = await db.query<{ id: string; status: SessionStatus }>('SELECT id, status FROM setup_sessions WHERE project_id = $1 ORDER BY created_at DESC LIMIT 1', [projectId])
  return rows[0]
}

/** Each step's state: done when its fact is true (spec), else as recorded, else pending. */
export function stepsOf(facts: Pick<SetupFacts, StepFact>, recorded: ReadonlyArray<{ step: string; status: string; note: string }>): Record<StepName, StepState> {
  const byStep = new Map(recorded.map((row) => [row.step, row]))
  const steps = {} as Record<StepName, StepState>
  for (const step of STEP_NAMES) {
    const fact = STEP_FACTS[step]
    const row = byStep.get(step)
    steps[step] = fact && facts[fact] ? { status: 'done', note: row?.note ?? '' } : { status: row?.status ?? 'pending', note: row?.note ?? '' }
  }
  return steps
}

/** The state facts (all false and empty before approval). */
async function factsOf(deps: SetupDeps, session: SessionRow, setup: ProjectSetup | undefined): Promise<Facts> {
  const { sdk_seen: _sessionOnly, ...facts } = setup?.facts ?? NO_FACTS
  return {
    ...facts,
    codehost_install_url: deps.codehost && deps.codehost.installUrl() ? `${deps.baseUrl}/setup/${session.id}/codehost-install` : '',
    steps: stepsOf(facts, await readRecordedSteps(deps.db, session.id)),
  }
}

const NEXT: Partial<Record<SessionStatus, string>> = {
  pending: 'Waiting for the person to open auth_url and approve. Keep polling with wait=30.',
  provisioned: 'Install @svc/sdk with ingest_key, send a test error, then wait on the state endpoint with until=event.',
  key_ok: 'Install @svc/sdk with ingest_key, send a test error, then wait on the state endpoint with until=event.',
  app_reporting: 'The SDK has loaded in a browser. Send a test error, wait for has_events on the state endpoint, then attach the repository and connect chat.',
}

/**
 * The poll answer. After approval it carries the keys: the first answer that does moves the
 * session to key_ok, and they stay collectable for the configured window after that, then the
 * sealed copy is wiped.
 */
export async function pollAnswer(deps: SetupDeps, session: SessionRow, token: string): Promise<Record<string, unknown>> {
  const approved = session.approved_at !== null
  if (session.status === 'failed') return { status: 'failed', approved, message: session.message }
  if (session.status === 'pending' || !session.project_id) return { status: session.status, approved, next: NEXT.pending }
  let current = session
  const answer: Record<string, unknown> = {}
  const windowOver = current.keys_delivered_at !== null && current.keys_delivered_at.getTime() + deps.limits.keyCollectMs <= Date.now()
  if (current.sealed_keys && !windowOver) {
    Object.assign(answer, JSON.parse(open(token, current.sealed_keys)) as Record<string, string>)
    // An app already on Sentry's SDK needs only this (docs/sentry-sdk.md); built from the ingest key, so delivered with it.
    const dsnNumber = typeof answer.ingest_key === 'string' ? await readDsnNumber(deps.db, current.project_id!) : undefined
    if (dsnNumber !== undefined) answer.sentry_dsn = sentryDsn(deps.baseUrl, answer.ingest_key as string, dsnNumber)
    if (!current.keys_delivered_at) {
      const { rows } = await deps.db.query<SessionRow>(`UPDATE setup_sessions SET keys_delivered_at = now(), status = CASE WHEN status = 'provisioned' THEN 'key_ok' ELSE status END WHERE id = $1 RETURNING *`, [current.id])
      current = rows[0] ?? current
    }
  } else {
    if (current.sealed_keys) await deps.db.query('UPDATE setup_sessions SET sealed_keys = NULL WHERE id = $1', [current.id])
    answer.message = 'The keys were delivered earlier and can no longer be collected here. Create new keys in the dashboard under Settings > API keys.'
  }
  const view = await viewSession(deps, current)
  return {
    status: view.session.status,
    approved,
    ...answer,
    project_id: view.session.project_id,
    project_name: view.projectName ?? session.project_name,
    ...projectLinks(deps.baseUrl, view.session.project_id!),
    facts: view.facts,
    next: NEXT[view.session.status] ?? '',
  }
}
