/**
 * The signed-in person's projects: the list, one project's overview, its issues (one with its
 * investigation and fix, and the owner's "Investigate again"). Settings: settings-routes.ts; the
 * owner's "Fix this": fix-routes.ts.
 */
import type uWS from 'uWebSockets.js'
import { readFix } from '../../investigator/read/fix.js'
import { requestInvestigation } from '../../investigator/commands.js'
import { fixWithheld, readInvestigation, readNotInvestigated } from '../../investigator/read/investigation.js'
import { listLinkedPullRequests } from '../mcp/pull-requests.js'
import { readProjectFacts } from '../setup/project-facts.js'
import type { DashboardDeps } from './deps.js'
import { issueForAction } from './issue-actions.js'
import { getDailyCounts, getFacets, getIssueDetail, getLatestEvent, listRecentEvents } from '../../grouper/read/issues.js'
import { getKnownProblemIdOfIssue } from '../../matcher/read/known-problems.js'
import { listIssues } from '../../grouper/read/issue-list.js'
import { getOwnProject, listOwnProjects, listProjectKeys, type ProjectFacts } from './project-queries.js'
import { listIssueSessions } from '../../recorder/read/recordings.js'
import { PageError, redirect, sendPage } from './respond.js'
import { getPage, postForm, type PageContext } from './route.js'
import { signInPath } from './viewer.js'
import { FIX_NOTICES } from './views/fix.js'
import { isActive, type InvestigationNotice } from './views/investigation.js'
import { issuePage } from './views/issue-page.js'
import { knownProblemPath } from './views/known-problem-words.js'
import { issuesPage, projectOverviewPage, projectsPage } from './views/projects.js'

/** The 404 of a project that is not among the signed-in person's. */
export const NOT_FOUND = (): PageError => new PageError(404, 'Not found', 'There is no such project among yours. Pick one from your projects.')
const NO_ISSUE = (): PageError => new PageError(404, 'Not found', 'This project has no such issue. Pick one from its issue list.')
const NOTICES: readonly InvestigationNotice[] = ['started', 'in_flight']

/**
 * The project a /projects/:id page is about, for its owner only; undefined after redirecting a
 * signed-out browser to sign in. Another person's project is "not found", not "forbidden", so ids
 * cannot be probed.
 */
export async function ownProject(deps: DashboardDeps, ctx: PageContext): Promise<{ userId: string; project: ProjectFacts } | undefined> {
  const { ex, request, viewer } = ctx
  if (!viewer.session) {
    const query = request.query.toString()
    redirect(ex, signInPath(query ? `${request.path}?${query}` : request.path), { status: 302 })
    return undefined
  }
  const project = await getOwnProject(deps.setup.db, viewer.session.user.id, request.params[0]!)
  if (!project) throw NOT_FOUND()
  return { userId: viewer.session.user.id, project }
}

/**
 * Registers /, /projects/:id, its issues (?noise=1 lists noise too), one issue (?investigation= and
 * ?fix= name the notice after a button) and the Investigate button's POST.
 */
export function registerProjectRoutes(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  const db = deps.setup.db

  getPage(app, deps, '/', async ({ ex, viewer }) => {
    if (!viewer.session) return redirect(ex, '/signin', { status: 302 })
    sendPage(ex, 200, projectsPage(viewer, await listOwnProjects(db, viewer.session.user.id)))
  })

  getPage(app, deps, '/projects/:id', async (ctx) => {
    const owned = await ownProject(deps, ctx)
    if (!owned) return
    const [setup, keys] = await Promise.all([readProjectFacts(db, deps.baseUrl, owned.project.id, null), listProjectKeys(db, owned.project.id)])
    // Deleted between the two reads: the same answer as a project that never was.
    if (!setup) throw NOT_FOUND()
    sendPage(ctx.ex, 200, projectOverviewPage(ctx.viewer, owned.project, setup, keys))
  })

  getPage(app, deps, '/projects/:id/issues', async (ctx) => {
    const owned = await ownProject(deps, ctx)
    if (!owned) return
    const withNoise = ctx.request.query.get('noise') === '1'
    sendPage(ctx.ex, 200, issuesPage(ctx.viewer, owned.project, await listIssues(db, owned.project.id, withNoise), withNoise))
  })

  getPage(app, deps, '/projects/:id/issues/:issue_id', async (ctx) => {
    const owned = await ownProject(deps, ctx)
    if (!owned) return
    const issue = await getIssueDetail(db, owned.project.id, ctx.request.params[1]!)
    if (!issue) throw NO_ISSUE()
    const [latest, facets, days, recent, sessions, view, fixView, note, ticketId, linked] = await Promise.all([
      getLatestEvent(db, issue.id),
      getFacets(db, issue.id),
      getDailyCounts(db, issue.id),
      listRecentEvents(db, issue.id),
      listIssueSessions(db, owned.project.id, issue.id),
      readInvestigation(deps.orm, issue.id),
      readFix(deps.orm, issue.id),
      readNotInvestigated(deps.orm, issue),
      issue.kind === 'friction' ? getKnownProblemIdOfIssue(db, owned.project.id, issue.id) : undefined,
      listLinkedPullRequests(db, owned.project.id, issue.id),
    ])
    const { query } = ctx.request
    const base = `/projects/${owned.project.id}/issues/${issue.id}`
    // Only the owner reaches this page (ownProject), so the buttons are theirs to press.
    const investigation = { view, issueKind: issue.kind, noise: issue.noise, note, requestPath: `${base}/investigate`, notice: NOTICES.find((n) => n === query.get('investigation')) }
    const fix = { view: fixView, issueKind: issue.kind, withheld: fixWithheld(issue, note), requestPath: `${base}/fix`, investigationActive: isActive(view), notice: FIX_NOTICES.find((n) => n === query.get('fix')) }
    const knownProblem = ticketId ? knownProblemPath(owned.project.id, ticketId) : undefined
    sendPage(ctx.ex, 200, issuePage(ctx.viewer, owned.project, { issue, latest, facets, days, recent, sessions, investigation, fix, knownProblem, linked }))
  })

  postForm(app, deps, '/projects/:id/issues/:issue_id/investigate', async (ctx) => {
    const target = await issueForAction(deps, ctx, {
      forbidden: "Only the project's owner can ask for an investigation. Sign in as the owner, or ask them to press the button.",
      notError: { title: 'Not investigated', message: 'Only error issues are investigated. Go back to the issue list and pick an error.' },
    })
    if (!target) return
    const { userId, project, issue } = target
    const result = await requestInvestigation(deps.orm, deps.setup.redis, deps.setup.keys, { issueId: issue.id, projectId: project.id, userId, leaseMs: deps.investigationLeaseMs })
    deps.log.info('investigation requested', { project_id: project.id, issue_id: issue.id, user_id: userId, result })
    redirect(ctx.ex, `${target.issuePath}?investigation=${result}`)
  })
}
