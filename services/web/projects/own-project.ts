/** Whose project a /projects/:id page is: every context's project pages ask here first. */
import type { DashboardDeps } from '../http/deps.js'
import { PageError, redirect } from '../http/respond.js'
import type { PageContext } from '../http/route.js'
import { signInPath } from '../http/viewer.js'
import { getMemberProject, type ProjectFacts, type Role } from './project-queries.js'

/** The 404 of a project that is not among the signed-in person's. */
export const NOT_FOUND = (): PageError => new PageError(404, 'Not found', 'There is no such project among yours. Pick one from your projects.')

/**
 * The 403 a member gets on an owner's page or form. A member knows the project exists, so a 404
 * would only mislead them; a person who is not a member still gets NOT_FOUND on pages.
 */
export const OWNERS_ONLY = (what: string): PageError =>
  new PageError(403, 'Owners only', `Only an owner of this project can ${what}. Ask one of its owners (see the Members tab) to do it, or to make you an owner.`)

/** A project page's viewer and project. */
export interface OwnedProject {
  userId: string
  project: ProjectFacts
  role: Role
}

/**
 * The project a /projects/:id page is about, for its members only; undefined after redirecting a
 * signed-out browser to sign in. Another person's project is "not found", not "forbidden", so ids
 * cannot be probed. Membership is read on every request, never kept in the session: a member
 * removed a moment ago is refused at their very next request.
 */
export async function ownProject(deps: DashboardDeps, ctx: PageContext): Promise<OwnedProject | undefined> {
  const { ex, request, viewer } = ctx
  if (!viewer.session) {
    const query = request.query.toString()
    redirect(ex, signInPath(query ? `${request.path}?${query}` : request.path), { status: 302 })
    return undefined
  }
  const project = await getMemberProject(deps.setup.db, viewer.session.user.id, request.params[0]!)
  if (!project) throw NOT_FOUND()
  return { userId: viewer.session.user.id, project, role: project.role }
}

/** ownProject for an owner's page (settings, keys): a member gets OWNERS_ONLY(what). */
export async function requireOwner(deps: DashboardDeps, ctx: PageContext, what: string): Promise<OwnedProject | undefined> {
  const owned = await ownProject(deps, ctx)
  if (owned && owned.role !== 'owner') throw OWNERS_ONLY(what)
  return owned
}
