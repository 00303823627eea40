/**
 * Invitation links (docs/members.md): GET /invitations/:token shows what the link is, and
 * POST /invitations/:token/accept (a form with the form token) makes the signed-in account a member.
 * A link that is expired, used, revoked or unknown answers a page that says which and changes nothing.
 */
import type uWS from 'uWebSockets.js'
import type { DashboardDeps } from '../http/deps.js'
import { redirect, sendPage } from '../http/respond.js'
import { getPage, postForm } from '../http/route.js'
import { signInPath } from '../http/viewer.js'
import { acceptInvitation, readInvitation } from './invitations.js'
import { alreadyMemberPage, DEAD_LINKS, deadInvitationPage, invitationPage } from './views/invitation.js'

const linkPath = (token: string): string => `/invitations/${encodeURIComponent(token)}`

/** Registers the invitation page and its accept form. */
export function registerInvitationRoutes(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  const db = deps.setup.db

  getPage(app, deps, '/invitations/:token', async ({ ex, request, viewer }) => {
    const token = request.params[0]!
    const invitation = await readInvitation(db, token)
    if (invitation.state !== 'pending') return sendPage(ex, DEAD_LINKS[invitation.state].status, deadInvitationPage(viewer, invitation.state), { cookies: viewer.cookies })
    sendPage(ex, 200, invitationPage(viewer, linkPath(token), invitation), { cookies: viewer.cookies })
  })

  postForm(app, deps, '/invitations/:token/accept', async ({ ex, request, viewer }) => {
    const token = request.params[0]!
    if (!viewer.session) return redirect(ex, signInPath(linkPath(token)))
    const userId = viewer.session.user.id
    const outcome = await acceptInvitation(db, token, userId)
    if (outcome.kind === 'already_member') return sendPage(ex, 409, alreadyMemberPage(viewer, outcome.projectId))
    if (outcome.kind !== 'joined') return sendPage(ex, DEAD_LINKS[outcome.kind].status, deadInvitationPage(viewer, outcome.kind))
    deps.log.info('invitation accepted', { project_id: outcome.projectId, user_id: userId, role: outcome.role })
    redirect(ex, `/projects/${outcome.projectId}`)
  })
}
