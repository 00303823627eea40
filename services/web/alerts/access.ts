/**
 * Who may see and change a project's alerts, in one place for the page and its form: every member
 * sees the rules and recent alerts; only an owner changes a rule, as with the project's other
 * settings (docs/members.md). Signed out goes to sign in; another person's project is not found.
 */
import type { DashboardDeps } from '../http/deps.js'
import type { PageContext } from '../http/route.js'
import { ownProject, requireOwner, type OwnedProject } from '../projects/own-project.js'

/** The project whose alerts ctx shows, for any member; undefined after a redirect to sign in. */
export function alertsProject(deps: DashboardDeps, ctx: PageContext): Promise<OwnedProject | undefined> {
  return ownProject(deps, ctx)
}

/** The project whose alert rules ctx changes, for an owner only; a member is refused (owners only). */
export function alertsManager(deps: DashboardDeps, ctx: PageContext): Promise<OwnedProject | undefined> {
  return requireOwner(deps, ctx, 'change its alert rules')
}
