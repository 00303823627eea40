/**
 * What the approval page does to a session: show it, approve it (create or pick the project, mint
 * the three keys, seal them to the poll token, wake the poll) or decline it. Free of HTTP, so the
 * dashboard route only maps results to pages.
 */
import { publishWake } from '../../../shared/redis.js'
import { getSession, type SessionStatus, type SetupDeps } from './sessions.js'
import { seal } from './seal.js'
import { mintProjectKeys } from '../projects/create-project.js'
import { OWNER_OF_PROJECT } from '../projects/project-queries.js'

export interface SessionForApproval {
  pollId: string
  agentName: string
  projectName: string
  gitRemote: string
  status: SessionStatus
  expiresAt: Date
  /** True while a person can still approve or decline it. */
  approvable: boolean
  /** Why it cannot be approved, for the page; empty when approvable. */
  message: string
}

export type ApprovalChoice = { kind: 'new'; name: string } | { kind: 'existing'; projectId: string }

export type ApprovalResult =
  | { ok: true; projectId: string }
  | { ok: false; code: 'not_found' | 'expired' | 'not_pending' | 'not_owner' | 'failed'; message: string }

/** The session as the approval page shows it; undefined for an unknown id. */
export async function sessionForApproval(deps: Pick<SetupDeps, 'db'>, pollId: string): Promise<SessionForApproval | undefined> {
  const session = await getSession(deps.db, pollId)
  if (!session) return undefined
  const expired = session.expires_at.getTime() <= Date.now() || session.status === 'expired'
  const approvable = !expired && session.status === 'pending'
  const message = expired
    ? 'This request expired. Ask the agent to start a new setup session.'
    : session.status === 'failed'
      ? session.message
      : approvable
        ? ''
        : 'This request was already approved.'
  return { pollId, agentName: session.agent_name, projectName: session.project_name, gitRemote: session.git_remote, status: expired ? 'expired' : session.status, expiresAt: session.expires_at, approvable, message }
}

/**
 * Approves a pending session for userId. A new project is owned by the user; an existing one must
 * be. Keys are minted and sealed in the same transaction as the status change, so a session is
 * either provisioned with keys or still pending; the poll is woken after the commit.
 */
export async function approveSetupSession(deps: SetupDeps, pollId: string, userId: string, choice: ApprovalChoice): Promise<ApprovalResult> {
  let result: ApprovalResult
  try {
    result = await deps.db.withTransaction(async (tx) => {
      const session = await getSession(tx, pollId, true)
      if (!session) return { ok: false, code: 'not_found', message: 'There is no such setup request.' } as const
      if (session.expires_at.getTime() <= Date.now() || session.status === 'expired') return { ok: false, code: 'expired', message: 'This request expired. Ask the agent to start a new setup session.' } as const
      if (session.status !== 'pending') return { ok: false, code: 'not_pending', message: session.status === 'failed' ? session.message : 'This request was already approved.' } as const
      let projectId: string
      if (choice.kind === 'existing') {
        const { rows } = await tx.query<{ id: string }>(`SELECT id FROM projects WHERE id = $1 AND ${OWNER_OF_PROJECT}`, [choice.projectId, userId])
        if (!rows[0]) return { ok: false, code: 'not_owner', message: 'You can only connect a project you own. Pick one of yours or create a new one.' } as const
        projectId = rows[0].id
      } else {
        const { rows } = await tx.query<{ id: string }>('INSERT INTO projects (name, owner_id) VALUES ($1, $2) RETURNING id', [choice.name, userId])
        projectId = rows[0]!.id
      }
      // The same three keys a project made on the dashboard or by svc create-project gets.
      const tokens = await mintProjectKeys(tx, projectId, `setup: ${session.agent_name}`)
      await tx.query(
        `UPDATE setup_sessions SET status = 'provisioned', approved_at = now(), approved_by = $2, project_id = $3, sealed_keys = $4 WHERE id = $1`,
        [pollId, userId, projectId, seal(session.seal_public_key, JSON.stringify(tokens))],
      )
      return { ok: true, projectId } as const
    })
  } catch (error) {
    // A service-side failure ends the session with a message the agent shows verbatim.
    deps.log.error('setup approval failed', { poll_id: pollId, error })
    const message = 'The service could not create the project keys. Start a new setup session; if it fails again, check the service logs.'
    await deps.db.query(`UPDATE setup_sessions SET status = 'failed', message = $2 WHERE id = $1 AND status = 'pending'`, [pollId, message]).catch(() => {})
    await publishWake(deps.redis, deps.keys.wakeSession(pollId))
    return { ok: false, code: 'failed', message }
  }
  if (result.ok) {
    deps.log.info('setup session approved', { poll_id: pollId, project_id: result.projectId })
    await publishWake(deps.redis, deps.keys.wakeSession(pollId))
  }
  return result
}

/** Declines a pending session: it fails with a message the agent shows its person. */
export async function declineSetupSession(deps: SetupDeps, pollId: string): Promise<ApprovalResult> {
  const message = 'The person declined this setup request on the approval page. Ask them before starting a new one.'
  const { rows } = await deps.db.query<{ id: string }>(`UPDATE setup_sessions SET status = 'failed', message = $2, sealed_keys = NULL WHERE id = $1 AND status = 'pending' AND expires_at > now() RETURNING id`, [pollId, message])
  if (!rows[0]) {
    const view = await sessionForApproval(deps, pollId)
    return { ok: false, code: view ? (view.status === 'expired' ? 'expired' : 'not_pending') : 'not_found', message: view?.message || 'There is no such setup request.' }
  }
  await publishWake(deps.redis, deps.keys.wakeSession(pollId))
  return { ok: true, projectId: '' }
}
