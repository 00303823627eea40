/**
 * The page an invitation link opens (GET /invitations/:token): the project and an Accept button for
 * a signed-in account, sign-in and sign-up links that come back here for a signed-out browser, and
 * for a link that no longer works a page that says why, with a stable code (data-code) for tools.
 */
import { html, type SafeHtml } from '../../http/html.js'
import type { Viewer } from '../../http/viewer.js'
import { csrfField, layout, messagePage, when } from '../../http/views/layout.js'
import type { InvitationState, InvitationView } from '../invitations.js'

/** A link's final state: its status, stable code, title and what to do. */
export const DEAD_LINKS: Readonly<Record<Exclude<InvitationState, 'pending'>, { status: number; code: string; title: string; message: string }>> = {
  expired: { status: 410, code: 'invitation_expired', title: 'Invitation expired', message: 'This invitation link has expired. Ask an owner of the project for a new one.' },
  used: { status: 410, code: 'invitation_used', title: 'Invitation already used', message: 'This invitation link was already used: each link works once. Ask an owner of the project for a new one if you still need to join.' },
  revoked: { status: 410, code: 'invitation_revoked', title: 'Invitation revoked', message: 'An owner of the project revoked this invitation link. Ask them for a new one if you still need to join.' },
  unknown: { status: 404, code: 'invitation_unknown', title: 'No such invitation', message: 'This is not a working invitation link: check that it was copied whole, or ask an owner of the project for a new one.' },
}

/** The page of a link that no longer works (or never did). */
export function deadInvitationPage(viewer: Viewer, state: Exclude<InvitationState, 'pending'>): SafeHtml {
  const dead = DEAD_LINKS[state]
  return layout(
    viewer,
    dead.title,
    html`<section class="panel narrow" data-code="${dead.code}">
  <h1>${dead.title}</h1>
  <p class="message">${dead.message}</p>
  <p class="actions"><a class="button secondary" href="/">${viewer.session ? 'Your projects' : 'Sign in'}</a></p>
</section>`,
  )
}

/** A pending link: Accept for a signed-in account, or sign in / sign up and come back. */
export function invitationPage(viewer: Viewer, path: string, invitation: InvitationView): SafeHtml {
  const next = encodeURIComponent(path)
  const body = viewer.session
    ? html`<form method="post" action="${path}/accept" class="stack">${csrfField(viewer)}<button type="submit" class="primary">Accept and join ${invitation.projectName ?? ''}</button></form>`
    : html`<p>Sign in, or create an account, to accept it: you come back to this page afterwards.</p>
<p class="actions"><a class="button primary" href="/signin?next=${next}">Sign in</a> <a class="button secondary" href="/signup?next=${next}">Create an account</a></p>`
  return layout(
    viewer,
    'Invitation',
    html`<section class="panel narrow" data-code="invitation_pending">
  <h1>Join ${invitation.projectName ?? ''}</h1>
  <p class="message">You are invited to the project <strong>${invitation.projectName ?? ''}</strong> as ${invitation.role === 'owner' ? 'an owner' : 'a member'}. The link works once and expires ${when(invitation.expiresAt)}.</p>
  ${body}
</section>`,
  )
}

/** Accepting as someone who is already a member: nothing changed, the link still works for someone else. */
export function alreadyMemberPage(viewer: Viewer, projectId: string): SafeHtml {
  return messagePage(viewer, 'Already a member', 'You are already a member of this project, so nothing changed; the link is left unused for the person it was meant for.', [{ href: `/projects/${projectId}`, label: 'Open the project' }])
}
