/**
 * Who may see and change a project's alerts: the one place that says so, for the page and its
 * form, so it can become owner-only (or a role's) in one edit. Today: the project's owner, as every
 * project page (ownProject: signed out goes to sign in, another person's project is not found).
 */
import type { DashboardDeps } from '../http/deps.js'
import type { PageContext } from '../http/route.js'
import { ownProject } from '../projects/own-project.js'
import type { ProjectFacts } from '../projects/project-queries.js'

/** The project whose alerts ctx is about, when the viewer may manage them; undefined after a redirect to sign in. */
export function alertsProject(deps: DashboardDeps, ctx: PageContext): Promise<{ userId: string; project: ProjectFacts } | undefined> {
  return ownProject(deps, ctx)
}
