/**
 * What an agent reports and asks for after approval: progress, attaching the repository,
 * connecting chat, completing. Each takes an authenticated session and answers with the spec's
 * body or throws AgentError.
 */
import { mendChat } from '../../digester/commands.js'
import { connectedMessage, zoneOrUtc } from '../../digester/read.js'
import { publishWake } from '../../../shared/redis.js'
import { CodehostUnreachable } from '../../../shared/plugins/types.js'
import { AgentError } from './errors.js'
import { STEP_NAMES, viewSession, type StepName } from './facts.js'
import type { SessionRow, SetupDeps } from './sessions.js'

const STEP_STATUSES = ['pending', 'running', 'done', 'failed', 'skipped'] as const
/** Steps whose status the service derives from facts; an agent may only say they failed or were skipped. */
const SERVICE_STEPS: ReadonlySet<StepName> = new Set(['codehost', 'chat', 'sourcemaps', 'first_event'])

/** Records a progress report. */
export async function recordProgress(deps: SetupDeps, session: SessionRow, body: { step: string; status: string; note?: string }): Promise<void> {
  if (!(STEP_NAMES as readonly string[]).includes(body.step)) {
    throw new AgentError('invalid_request', { field: 'step', message: `step must be one of ${STEP_NAMES.join(', ')}.` })
  }
  if (!(STEP_STATUSES as readonly string[]).includes(body.status)) {
    throw new AgentError('invalid_request', { field: 'status', message: `status must be one of ${STEP_STATUSES.join(', ')}.` })
  }
  const step = body.step as StepName
  if (SERVICE_STEPS.has(step) && body.status !== 'failed' && body.status !== 'skipped') {
    throw new AgentError('step_set_by_service', { field: 'status', message: `The service sets ${step} itself from what it observes; report it only as failed or skipped.` })
  }
  await deps.db.query(
    `INSERT INTO setup_steps (session_id, step, status, note) VALUES ($1, $2, $3, $4)
     ON CONFLICT (session_id, step) DO UPDATE SET status = EXCLUDED.status, note = EXCLUDED.note, updated_at = now()`,
    [session.id, step, body.status, body.note ?? ''],
  )
  await publishWake(deps.redis, deps.keys.wakeSession(session.id))
}

/** 200 once an event arrived for the project since the session began; 422 otherwise. */
export async function completeSession(deps: SetupDeps, session: SessionRow): Promise<Record<string, unknown>> {
  if (!session.project_id) {
    throw new AgentError('first_event_missing', { message: 'The session is not approved yet, so no event can have arrived. Wait for approval, send a test error, then complete.' })
  }
  const { facts } = await viewSession(deps, session)
  if (!facts.has_events) throw new AgentError('first_event_missing')
  await deps.db.query('UPDATE setup_sessions SET completed_at = coalesce(completed_at, now()) WHERE id = $1', [session.id])
  await publishWake(deps.redis, deps.keys.wakeSession(session.id))
  return { status: session.status, completed: true, facts }
}

function requireProject(session: SessionRow): string {
  if (!session.project_id) throw new AgentError('not_approved', { extra: { error: 'not_approved' } })
  return session.project_id
}

/** Attaches owner/repo to the session's project if the code host app can see it (spec attach table). */
export async function attachRepository(deps: SetupDeps, session: SessionRow, repo: string): Promise<Record<string, unknown>> {
  const projectId = requireProject(session)
  if (!deps.codehost) throw new AgentError('codehost_not_configured', { extra: { error: 'codehost_not_configured' } })
  const { rows } = await deps.db.query<{ codehost_installation_id: string }>('SELECT codehost_installation_id FROM projects WHERE id = $1', [projectId])
  let access
  try {
    access = await deps.codehost.checkRepository(repo, rows[0]?.codehost_installation_id ?? '')
  } catch (error) {
    if (error instanceof CodehostUnreachable) throw new AgentError('codehost_unreachable')
    throw error
  }
  const wakeProject = (): Promise<void> => publishWake(deps.redis, deps.keys.wakeProject(projectId))
  switch (access.status) {
    case 'visible':
      await deps.db.query(
        `UPDATE projects SET codehost_repo = $2, codehost_installation_id = $3, codehost_repo_access = $4, codehost_connected_at = now() WHERE id = $1`,
        [projectId, repo, access.installationId, access.private ? 'visible_private' : 'visible_public'],
      )
      await wakeProject()
      return { codehost_connected: true, codehost_repo: repo, message: 'Repository attached. It can be detached under Settings > Code host.' }
    case 'not_in_installation':
      await deps.db.query(`UPDATE projects SET codehost_installation_id = $2, codehost_repo_access = 'not_in_installation' WHERE id = $1`, [projectId, access.installationId])
      await wakeProject()
      throw new AgentError('repo_not_in_installation', { extra: { add_repo_url: access.addRepoUrl } })
    case 'not_installed':
      throw new AgentError('codehost_not_installed', { extra: { codehost_install_url: `${deps.baseUrl}/setup/${session.id}/codehost-install` } })
    case 'installation_gone':
      await deps.db.query(`UPDATE projects SET codehost_installation_id = '', codehost_repo_access = 'installation_gone' WHERE id = $1`, [projectId])
      await wakeProject()
      throw new AgentError('codehost_installation_gone')
    case 'suspended':
      throw new AgentError('codehost_installation_suspended')
    case 'invalid':
      throw new AgentError('codehost_rejected', { extra: { error: access.message } })
  }
}

/** Sends a test message to the webhook; on success stores it and turns chat_connected on. */
export async function connectChat(deps: SetupDeps, session: SessionRow, webhookUrl: string): Promise<{ ok: boolean; error?: string }> {
  const projectId = requireProject(session)
  if (!deps.chat) return { ok: false, error: 'This service has no chat plugin configured.' }
  const { rows } = await deps.db.query<{ name: string; timezone: string }>('SELECT name, timezone FROM projects WHERE id = $1', [projectId])
  const text = connectedMessage(rows[0]?.name ?? 'your project', zoneOrUtc(rows[0]?.timezone ?? 'UTC'))
  const result = await deps.chat.send(webhookUrl, { text })
  if (!result.ok) return { ok: false, error: result.error }
  // A new webhook that took the test message mends a chat the digester found broken.
  await deps.db.withTransaction(async (tx) => {
    await tx.query('UPDATE projects SET chat_webhook_url = $2, chat_connected_at = now() WHERE id = $1', [projectId, webhookUrl])
    await mendChat(tx, projectId)
  })
  await publishWake(deps.redis, deps.keys.wakeProject(projectId))
  return { ok: true }
}
