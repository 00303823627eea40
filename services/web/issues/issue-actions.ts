/**
 * What every member's action on one issue checks before it acts ("Investigate again", "Fix this"):
 * a signed-in viewer, a member of the project, an issue of that project, and an error issue that is
 * not noise.
 */
import type { DashboardDeps } from '../http/deps.js'
import { getIssueDetail, type IssueDetail } from '../../grouper/read/issues.js'
import { getMemberProject, type ProjectFacts } from '../projects/project-queries.js'
import { PageError, redirect } from '../http/respond.js'
import type { FormContext } from '../http/route.js'
import { signInPath } from '../http/viewer.js'

/** The issue an action is about, with who acts and where its page is. */
export interface ActionTarget {
  userId: string
  project: ProjectFacts
  issue: IssueDetail
  /** The issue page, where the action sends the browser back. */
  issuePath: string
}

/** What an action says to a person who may not take it, and about an issue that is not an error. */
export interface ActionRefusals {
  forbidden: string
  notError: { title: string; message: string }
}

/**
 * The target of a POST /projects/:id/issues/:issue_id/<action>; undefined after sending a
 * signed-out browser to sign in. An action, unlike a page, says "forbidden" to anybody but a
 * member: also for an id that does not exist, so the answer tells nothing about other people's projects.
 */
export async function issueForAction(deps: DashboardDeps, ctx: FormContext, refusals: ActionRefusals): Promise<ActionTarget | undefined> {
  const { ex, request, viewer } = ctx
  const [projectId, issueId] = request.params as [string, string]
  if (!viewer.session) {
    redirect(ex, signInPath(`/projects/${encodeURIComponent(projectId)}/issues/${encodeURIComponent(issueId)}`))
    return undefined
  }
  const userId = viewer.session.user.id
  const project = await getMemberProject(deps.setup.db, userId, projectId)
  if (!project) throw new PageError(403, 'Not allowed', refusals.forbidden)
  const issue = await getIssueDetail(deps.setup.db, project.id, issueId)
  if (!issue) throw new PageError(404, 'Not found', 'This project has no such issue. Pick one from its issue list.')
  if (issue.kind !== 'error') throw new PageError(409, refusals.notError.title, refusals.notError.message)
  if (issue.noise !== '') throw new PageError(409, refusals.notError.title, 'This issue is marked as noise, which is never investigated or fixed. Go back to the issue list and pick an error that is not noise.')
  return { userId, project, issue, issuePath: `/projects/${project.id}/issues/${issue.id}` }
}
