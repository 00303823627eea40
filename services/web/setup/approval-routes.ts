/**
 * The approval page behind an agent's auth_url: show the request, approve it into a new or an
 * existing project, or decline it; and the session's fixed code-host install link.
 */
import type uWS from 'uWebSockets.js'
import { approveSetupSession, declineSetupSession, sessionForApproval, type ApprovalChoice, type ApprovalResult, type SessionForApproval } from './approval.js'
import type { DashboardDeps } from '../http/deps.js'
import { safeHref } from '../http/html.js'
import { isUuid } from '../../../shared/domain/uuid.js'
import { listOwnProjects } from '../projects/project-queries.js'
import { PageError, redirect, sendPage } from '../http/respond.js'
import { getPage, postForm } from '../http/route.js'
import { signInPath } from '../http/viewer.js'
import { approvalPage, approvalSignedOutPage, approvedPage, declinedPage } from './views/approval.js'

const FAILURE_STATUS: Readonly<Record<Exclude<ApprovalResult, { ok: true }>['code'], number>> = {
  not_found: 404,
  expired: 410,
  not_pending: 409,
  not_owner: 403,
  failed: 500,
}

async function requireSession(deps: DashboardDeps, pollId: string): Promise<SessionForApproval> {
  const session = await sessionForApproval(deps.setup, pollId)
  if (!session) throw new PageError(404, 'No such setup request', 'This approval link is not known. Check that you opened the whole link the agent printed, or ask the agent to start again.')
  return session
}

/** The project the form picked: "new" (named as the agent asked) or the id of one of the person's projects. */
function choiceFrom(form: URLSearchParams, session: SessionForApproval): ApprovalChoice {
  const picked = form.get('project') ?? 'new'
  if (picked === 'new') return { kind: 'new', name: session.projectName }
  if (!isUuid(picked)) throw new PageError(400, 'Pick a project', 'Choose "create a new project" or one of your projects, then approve again.')
  return { kind: 'existing', projectId: picked }
}

/** Registers /setup/:poll_id and its approve, decline and codehost-install actions. */
export function registerApprovalRoutes(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  getPage(app, deps, '/setup/:poll_id', async ({ ex, request, viewer }) => {
    const session = await requireSession(deps, request.params[0]!)
    if (!viewer.session) return sendPage(ex, 200, approvalSignedOutPage(viewer, session.pollId, deps.codehost?.oauth !== undefined), { cookies: viewer.cookies })
    const projects = session.approvable ? await listOwnProjects(deps.setup.db, viewer.session.user.id, true) : []
    sendPage(ex, 200, approvalPage(viewer, session, projects))
  })

  postForm(app, deps, '/setup/:poll_id/approve', async ({ ex, request, viewer, form }) => {
    const pollId = request.params[0]!
    if (!viewer.session) return redirect(ex, signInPath(`/setup/${pollId}`))
    const session = await requireSession(deps, pollId)
    const result = await approveSetupSession(deps.setup, pollId, viewer.session.user.id, choiceFrom(form, session))
    if (result.ok) return sendPage(ex, 200, approvedPage(viewer, session, result.projectId))
    if (result.code === 'not_owner') {
      const projects = await listOwnProjects(deps.setup.db, viewer.session.user.id, true)
      return sendPage(ex, 403, approvalPage(viewer, session, projects, result.message))
    }
    // Closed meanwhile (expired, approved or declined elsewhere): show it as it is now, without buttons.
    const now = result.code === 'failed' ? undefined : await sessionForApproval(deps.setup, pollId)
    if (now && result.code !== 'not_found') return sendPage(ex, FAILURE_STATUS[result.code], approvalPage(viewer, now, []))
    throw new PageError(FAILURE_STATUS[result.code], 'Not approved', result.message)
  })

  postForm(app, deps, '/setup/:poll_id/decline', async ({ ex, request, viewer }) => {
    const pollId = request.params[0]!
    if (!viewer.session) return redirect(ex, signInPath(`/setup/${pollId}`))
    const session = await requireSession(deps, pollId)
    const result = await declineSetupSession(deps.setup, pollId)
    if (result.ok) {
      deps.log.info('setup session declined', { poll_id: pollId, user_id: viewer.session.user.id })
      return sendPage(ex, 200, declinedPage(viewer, session))
    }
    const now = await sessionForApproval(deps.setup, pollId)
    if (now) return sendPage(ex, FAILURE_STATUS[result.code], approvalPage(viewer, now, []))
    throw new PageError(FAILURE_STATUS[result.code], 'Not declined', result.message)
  })

  getPage(app, deps, '/setup/:poll_id/codehost-install', async ({ ex, request, viewer }) => {
    const pollId = request.params[0]!
    if (!viewer.session) return redirect(ex, signInPath(`/setup/${pollId}/codehost-install`), { status: 302 })
    await requireSession(deps, pollId)
    const target = deps.codehost ? safeHref(deps.codehost.installUrl()) : undefined
    if (!target) throw new PageError(404, 'No code host app', 'This deployment has no code host app to install. The agent can go on without it; a person can attach a repository later in the project settings.')
    redirect(ex, target, { status: 302 })
  })
}
