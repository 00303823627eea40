/**
 * What a session reports: the state facts (spec "State facts") and the poll answer. Facts are read
 * from the project's rows each time, never cached, so a held poll that is woken sees the change
 * that woke it. has_events counts only events received since the session began: an existing
 * project's old events prove nothing about the app being set up now.
 */
import type { Queryable } from '../../../shared/db.js'
import { open } from './seal.js'
import { type SessionRow, type SessionStatus, type SetupDeps } from './sessions.js'

export const STEP_NAMES = ['install_sdk', 'first_event', 'codehost', 'chat', 'sourcemaps', 'mcp', 'pull_request'] as const
export type StepName = (typeof STEP_NAMES)[number]

/** The step each fact marks done, when true. */
const STEP_FACTS: Partial<Record<StepName, 'has_events' | 'codehost_connected' | 'chat_connected' | 'sourcemaps_uploaded'>> = {
  first_event: 'has_events',
  codehost: 'codehost_connected',
  chat: 'chat_connected',
  sourcemaps: 'sourcemaps_uploaded',
}

export interface Facts {
  has_events: boolean
  latest_error_group_url: string
  issues_url: string
  codehost_connected: boolean
  codehost_installed: boolean
  codehost_repo: string
  codehost_repo_access: string
  codehost_install_url: string
  codehost_connect_url: string
  chat_connected: boolean
  /** Why the chat refused the digest's webhook (redacted; empty when it has not): chat_connected is then false until chat is connected again. */
  chat_error: string
  sourcemaps_uploaded: boolean
  steps: Record<StepName, { status: string; note: string }>
}

interface ProjectFacts {
  name: string
  codehost_repo: string
  codehost_installation_id: string
  codehost_connected: boolean
  codehost_repo_access: string
  chat_connected: boolean
  chat_error: string
  sourcemaps_uploaded: boolean
  sdk_seen: boolean
  has_events: boolean
  latest_issue: string | null
}

/** Dashboard links of a project. */
export function projectLinks(baseUrl: string, projectId: string): { dashboard_url: string; issues_url: string; codehost_connect_url: string } {
  return {
    dashboard_url: `${baseUrl}/projects/${projectId}`,
    issues_url: `${baseUrl}/projects/${projectId}/issues`,
    codehost_connect_url: `${baseUrl}/projects/${projectId}/settings/codehost`,
  }
}

async function readProject(db: Queryable, projectId: string, since: Date): Promise<ProjectFacts | undefined> {
  const { rows } = await db.query<ProjectFacts>(
    `SELECT p.name, p.codehost_repo, p.codehost_installation_id, p.codehost_repo_access,
            p.codehost_connected_at IS NOT NULL AND p.codehost_repo <> '' AS codehost_connected,
            p.chat_connected_at IS NOT NULL AND p.chat_broken_at IS NULL AS chat_connected,
            CASE WHEN p.chat_broken_at IS NULL THEN '' ELSE p.chat_error END AS chat_error,
            p.sourcemaps_uploaded_at IS NOT NULL AS sourcemaps_uploaded,
            p.sdk_seen_at IS NOT NULL AND p.sdk_seen_at >= $2 AS sdk_seen,
            EXISTS (SELECT 1 FROM events e WHERE e.project_id = p.id AND e.received_at >= $2) AS has_events,
            (SELECT i.id FROM issues i WHERE i.project_id = p.id ORDER BY i.last_seen DESC LIMIT 1) AS latest_issue
       FROM projects p WHERE p.id = $1`,
    [projectId, since],
  )
  return rows[0]
}

/** A session as a read sees it: its status after the app_reporting move, its facts, its project's name. */
export interface SessionView {
  session: SessionRow
  facts: Facts
  projectName: string | undefined
}

/**
 * Reads a session's project once and derives everything from that row: the move to app_reporting
 * (once a browser SDK checked in, or an event arrived, after the session began) and the facts.
 */
export async function viewSession(deps: SetupDeps, session: SessionRow): Promise<SessionView> {
  const project = session.project_id ? await readProject(deps.db, session.project_id, session.created_at) : undefined
  const current = await moveToAppReporting(deps, session, project)
  return { session: current, facts: await factsOf(deps, current, project), projectName: project?.name }
}

/** The session with the app_reporting move applied (one project read, only while key_ok). */
export async function refreshStatus(deps: SetupDeps, session: SessionRow): Promise<SessionRow> {
  if (session.status !== 'key_ok' || !session.project_id) return session
  return moveToAppReporting(deps, session, await readProject(deps.db, session.project_id, session.created_at))
}

async function moveToAppReporting(deps: SetupDeps, session: SessionRow, project: ProjectFacts | undefined): Promise<SessionRow> {
  if (session.status !== 'key_ok' || !(project?.sdk_seen || project?.has_events)) return session
  await deps.db.query(`UPDATE setup_sessions SET status = 'app_reporting' WHERE id = $1 AND status = 'key_ok'`, [session.id])
  return { ...session, status: 'app_reporting' }
}

/** The state facts (all false and empty before approval). */
async function factsOf(deps: SetupDeps, session: SessionRow, project: ProjectFacts | undefined): Promise<Facts> {
  const links = session.project_id ? projectLinks(deps.baseUrl, session.project_id) : undefined
  const { rows } = await deps.db.query<{ step: StepName; status: string; note: string }>('SELECT step, status, note FROM setup_steps WHERE session_id = $1', [session.id])
  const recorded = new Map(rows.map((row) => [row.step, row]))
  const facts: Omit<Facts, 'steps'> = {
    has_events: project?.has_events ?? false,
    latest_error_group_url: project?.latest_issue && links ? `${links.issues_url}/${project.latest_issue}` : '',
    issues_url: links?.issues_url ?? '',
    codehost_connected: project?.codehost_connected ?? false,
    codehost_installed: (project?.codehost_installation_id ?? '') !== '',
    codehost_repo: project?.codehost_repo ?? '',
    codehost_repo_access: project?.codehost_repo_access ?? '',
    codehost_install_url: deps.codehost && deps.codehost.installUrl() ? `${deps.baseUrl}/setup/${session.id}/codehost-install` : '',
    codehost_connect_url: links?.codehost_connect_url ?? '',
    chat_connected: project?.chat_connected ?? false,
    chat_error: project?.chat_error ?? '',
    sourcemaps_uploaded: project?.sourcemaps_uploaded ?? false,
  }
  const steps = {} as Facts['steps']
  for (const step of STEP_NAMES) {
    const fact = STEP_FACTS[step]
    const row = recorded.get(step)
    steps[step] = fact && facts[fact] ? { status: 'done', note: row?.note ?? '' } : { status: row?.status ?? 'pending', note: row?.note ?? '' }
  }
  return { ...facts, steps }
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
