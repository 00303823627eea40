/**
 * The owner's "Fix this" on an issue page: a fix at once when the issue's latest investigation found
 * the cause in the code, an investigation first when none did, nothing while either is in flight.
 */
import type uWS from 'uWebSockets.js'
import { requestFix } from '../../investigator/commands.js'
import type { DashboardDeps } from '../http/deps.js'
import { issueForAction } from './issue-actions.js'
import { redirect } from '../http/respond.js'
import { postForm } from '../http/route.js'

/** Registers POST /projects/:id/issues/:issue_id/fix; the browser goes back to the issue with ?fix=<result>. */
export function registerFixRoutes(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  postForm(app, deps, '/projects/:id/issues/:issue_id/fix', async (ctx) => {
    const target = await issueForAction(deps, ctx, {
      forbidden: "Only members of the project can ask for a fix. Sign in as one of them, or ask them to press the button.",
      notError: { title: 'Not fixed', message: 'Only error issues are fixed. Go back to the issue list and pick an error.' },
    })
    if (!target) return
    const { userId, project, issue } = target
    const result = await requestFix(deps.orm, deps.setup.redis, deps.setup.keys, { issueId: issue.id, projectId: project.id, trigger: 'manual', userId, leaseMs: deps.investigationLeaseMs })
    deps.log.info('fix requested', { project_id: project.id, issue_id: issue.id, user_id: userId, result })
    redirect(ctx.ex, `${target.issuePath}?fix=${result}`)
  })
}
