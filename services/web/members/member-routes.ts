/**
 * The members page and its forms (docs/members.md). Any member may open the page and leave; only
 * an owner may invite, revoke an invitation, change a role or remove a member: a member is told
 * "owners only" (403), anybody else "not allowed" (403, also for ids that do not exist, as every
 * dashboard form answers). Membership is read on every request, so a removal takes effect at the
 * removed person's next request, whatever sessions they have open.
 */
import type uWS from 'uWebSockets.js'
import type { DashboardDeps } from '../http/deps.js'
import { PageError, redirect, sendPage } from '../http/respond.js'
import { getPage, postForm, type FormContext } from '../http/route.js'
import { signInPath } from '../http/viewer.js'
import { ownProject, OWNERS_ONLY } from '../projects/own-project.js'
import { getMemberProject, type ProjectFacts } from '../projects/project-queries.js'
import { createInvitation, listPendingInvitations, revokeInvitation } from './invitations.js'
import { changeRole, listMembers, readRole, removeMember, type MembershipOutcome } from './member-store.js'
import { membersPage, type MembersState } from './views/members.js'

const membersPath = (projectId: string): string => `/projects/${encodeURIComponent(projectId)}/members`

/** The notices a redirect back to the page may name (?done=). */
const NOTICES: Readonly<Record<string, string>> = {
  removed: 'The member is removed: their next request to this project is refused.',
  role: 'The role is changed.',
  unchanged: 'Nothing changed: the member already had that role.',
  revoked: 'The invitation is revoked: its link no longer works.',
}

const LAST_OWNER = 'A project needs at least one owner, and this is its last one. Make another member an owner first; nothing was changed.'

/** The project a members form posts to, for a member (and with owners, an owner); undefined after sending a signed-out browser to sign in. */
async function memberOfForm(deps: DashboardDeps, ctx: FormContext, owners: boolean): Promise<{ userId: string; project: ProjectFacts } | undefined> {
  const projectId = ctx.request.params[0]!
  if (!ctx.viewer.session) {
    redirect(ctx.ex, signInPath(membersPath(projectId)))
    return undefined
  }
  const project = await getMemberProject(deps.setup.db, ctx.viewer.session.user.id, projectId)
  if (!project) throw new PageError(403, 'Not allowed', 'Only members of the project can do this. Sign in as one of them.')
  if (owners && project.role !== 'owner') throw OWNERS_ONLY('manage its members and invitations')
  return { userId: ctx.viewer.session.user.id, project }
}

/** Registers GET /projects/:id/members and its forms' POSTs. */
export function registerMemberRoutes(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  const db = deps.setup.db
  const page = async (ctx: FormContext, project: ProjectFacts, status: number, state: MembersState): Promise<void> => {
    const [members, invitations] = await Promise.all([listMembers(db, project.id), project.role === 'owner' ? listPendingInvitations(db, project.id) : []])
    sendPage(ctx.ex, status, membersPage(ctx.viewer, project, members, invitations, state))
  }
  /** The answer to a membership change: back to the page with a notice, or the page with what refused it. */
  const answer = async (ctx: FormContext, project: ProjectFacts, outcome: MembershipOutcome, done: string): Promise<void> => {
    if (outcome === 'last_owner') return page(ctx, project, 409, { error: LAST_OWNER })
    if (outcome === 'not_member') return page(ctx, project, 404, { error: 'That person is not a member of this project (they may have left or been removed). Reload the page.' })
    redirect(ctx.ex, `${membersPath(project.id)}?done=${outcome === 'unchanged' ? 'unchanged' : done}`)
  }

  getPage(app, deps, '/projects/:id/members', async (ctx) => {
    const owned = await ownProject(deps, ctx)
    if (!owned) return
    const [members, invitations] = await Promise.all([listMembers(db, owned.project.id), owned.role === 'owner' ? listPendingInvitations(db, owned.project.id) : []])
    sendPage(ctx.ex, 200, membersPage(ctx.viewer, owned.project, members, invitations, { notice: NOTICES[ctx.request.query.get('done') ?? ''] }))
  })

  postForm(app, deps, '/projects/:id/members/invitations', async (ctx) => {
    const acting = await memberOfForm(deps, ctx, true)
    if (!acting) return
    const role = readRole(ctx.form.get('role'))
    if (!role) return page(ctx, acting.project, 400, { error: 'Pick a role for the invitation (member or owner) and create it again.' })
    const invitation = await createInvitation(db, acting.project.id, role, acting.userId, deps.invitationTtlMs)
    // The token is in this answer only: never logged, never in a redirect's address.
    deps.log.info('invitation created', { project_id: acting.project.id, user_id: acting.userId, invitation_id: invitation.id, role })
    await page(ctx, acting.project, 200, { created: { link: `${deps.baseUrl}/invitations/${invitation.token}`, role, expiresAt: invitation.expiresAt } })
  })

  postForm(app, deps, '/projects/:id/members/invitations/:invitation_id/revoke', async (ctx) => {
    const acting = await memberOfForm(deps, ctx, true)
    if (!acting) return
    const invitationId = ctx.request.params[1]!
    if (!(await revokeInvitation(db, acting.project.id, invitationId))) return page(ctx, acting.project, 404, { error: 'This project has no pending invitation with this id (it may be used, expired or revoked already). Reload the page.' })
    deps.log.info('invitation revoked', { project_id: acting.project.id, user_id: acting.userId, invitation_id: invitationId })
    redirect(ctx.ex, `${membersPath(acting.project.id)}?done=revoked`)
  })

  postForm(app, deps, '/projects/:id/members/leave', async (ctx) => {
    const acting = await memberOfForm(deps, ctx, false)
    if (!acting) return
    const outcome = await removeMember(db, acting.project.id, acting.userId)
    if (outcome === 'last_owner') return page(ctx, acting.project, 409, { error: `You are this project's last owner, so you cannot leave it. Make another member an owner first; nothing was changed.` })
    deps.log.info('member left', { project_id: acting.project.id, user_id: acting.userId, outcome })
    redirect(ctx.ex, '/')
  })

  postForm(app, deps, '/projects/:id/members/:user_id/remove', async (ctx) => {
    const acting = await memberOfForm(deps, ctx, true)
    if (!acting) return
    const target = ctx.request.params[1]!
    const outcome = await removeMember(db, acting.project.id, target)
    deps.log.info('member removed', { project_id: acting.project.id, user_id: acting.userId, member_id: target, outcome })
    await answer(ctx, acting.project, outcome, 'removed')
  })

  postForm(app, deps, '/projects/:id/members/:user_id/role', async (ctx) => {
    const acting = await memberOfForm(deps, ctx, true)
    if (!acting) return
    const role = readRole(ctx.form.get('role'))
    if (!role) return page(ctx, acting.project, 400, { error: 'The role is member or owner. Reload the page and use its buttons.' })
    const target = ctx.request.params[1]!
    const outcome = await changeRole(db, acting.project.id, target, role)
    deps.log.info('member role changed', { project_id: acting.project.id, user_id: acting.userId, member_id: target, role, outcome })
    // An owner who made themself a member no longer may see the owner's forms: reread the project.
    const now = (await getMemberProject(db, acting.userId, acting.project.id)) ?? acting.project
    await answer(ctx, now, outcome, 'role')
  })
}
