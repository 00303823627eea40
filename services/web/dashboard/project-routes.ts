/** The signed-in person's projects: the list, one project's overview, its issues and code-host settings. */
import type uWS from 'uWebSockets.js'
import type { DashboardDeps } from './deps.js'
import { getDailyCounts, getFacets, getIssueDetail, getLatestEvent, listRecentEvents } from './issue-queries.js'
import { getOwnProject, listIssues, listOwnProjects, listProjectKeys, type ProjectFacts } from './project-queries.js'
import { PageError, redirect, sendPage } from './respond.js'
import { getPage, type PageContext } from './route.js'
import { signInPath } from './viewer.js'
import { issuePage } from './views/issue-page.js'
import { codehostSettingsPage, issuesPage, projectOverviewPage, projectsPage } from './views/projects.js'

const NOT_FOUND = (): PageError => new PageError(404, 'Not found', 'There is no such project among yours. Pick one from your projects.')

/**
 * The project a /projects/:id page is about, for its owner only; undefined after redirecting a
 * signed-out browser to sign in. Another person's project is "not found", not "forbidden", so ids
 * cannot be probed.
 */
async function ownProject(deps: DashboardDeps, ctx: PageContext): Promise<{ userId: string; project: ProjectFacts } | undefined> {
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

/** Registers /, /projects/:id, its issues (?noise=1 lists noise too), one issue and its code-host settings. */
export function registerProjectRoutes(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  const db = deps.setup.db

  getPage(app, deps, '/', async ({ ex, viewer }) => {
    if (!viewer.session) return redirect(ex, '/signin', { status: 302 })
    sendPage(ex, 200, projectsPage(viewer, await listOwnProjects(db, viewer.session.user.id)))
  })

  getPage(app, deps, '/projects/:id', async (ctx) => {
    const owned = await ownProject(deps, ctx)
    if (!owned) return
    sendPage(ctx.ex, 200, projectOverviewPage(ctx.viewer, owned.project, await listProjectKeys(db, owned.project.id)))
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
    if (!issue) throw new PageError(404, 'Not found', 'This project has no such issue. Pick one from its issue list.')
    const [latest, facets, days, recent] = await Promise.all([getLatestEvent(db, issue.id), getFacets(db, issue.id), getDailyCounts(db, issue.id), listRecentEvents(db, issue.id)])
    sendPage(ctx.ex, 200, issuePage(ctx.viewer, owned.project, { issue, latest, facets, days, recent }))
  })

  getPage(app, deps, '/projects/:id/settings/codehost', async (ctx) => {
    const owned = await ownProject(deps, ctx)
    if (!owned) return
    const installUrl = deps.codehost?.installUrl() || undefined
    sendPage(ctx.ex, 200, codehostSettingsPage(ctx.viewer, owned.project, installUrl))
  })
}
