/**
 * The signed-in person's projects: the list and one project's overview. Its issues:
 * issues/issue-routes.ts; its settings: settings/settings-routes.ts.
 */
import type uWS from 'uWebSockets.js'
import { readProjectFacts } from '../setup/project-facts.js'
import type { DashboardDeps } from '../http/deps.js'
import { redirect, sendPage } from '../http/respond.js'
import { getPage } from '../http/route.js'
import { NOT_FOUND, ownProject } from './own-project.js'
import { listOwnProjects, listProjectKeys } from './project-queries.js'
import { projectOverviewPage, projectsPage } from './views/projects.js'
import { registerCreateProjectRoutes } from './create-routes.js'

/** Registers /, /projects/new and /projects/:id. */
export function registerProjectRoutes(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  const db = deps.setup.db
  registerCreateProjectRoutes(app, deps)

  getPage(app, deps, '/', async ({ ex, viewer }) => {
    if (!viewer.session) return redirect(ex, '/signin', { status: 302 })
    sendPage(ex, 200, projectsPage(viewer, await listOwnProjects(db, viewer.session.user.id), deps.developmentProjectId !== undefined))
  })

  getPage(app, deps, '/projects/:id', async (ctx) => {
    const owned = await ownProject(deps, ctx)
    if (!owned) return
    const [setup, keys] = await Promise.all([readProjectFacts(db, deps.baseUrl, owned.project.id, null), listProjectKeys(db, owned.project.id)])
    // Deleted between the two reads: the same answer as a project that never was.
    if (!setup) throw NOT_FOUND()
    sendPage(ctx.ex, 200, projectOverviewPage(ctx.viewer, owned.project, setup, keys))
  })
}
