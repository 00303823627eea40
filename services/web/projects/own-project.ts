/** Whose project a /projects/:id page is: every context's project pages ask here first. */
import type { DashboardDeps } from '../http/deps.js'
import { PageError, redirect } from '../http/respond.js'
import type { PageContext } from '../http/route.js'
import { signInPath } from '../http/viewer.js'
import { getOwnProject, type ProjectFacts } from './project-queries.js'

/** The 404 of a project that is not among the signed-in person's. */
export const NOT_FOUND = (): PageError => new PageError(404, 'Not found', 'There is no such project among yours. Pick one from your projects.')

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
