/**
 * The members page (GET /projects/:id/members): who is in the project and with which role, and
 * for owners the forms that invite (the link shown once, on the answer to the form), revoke a
 * pending invitation, change a role and remove a member. Everyone may leave.
 */
import { html, type SafeHtml } from '../../http/html.js'
import type { Viewer } from '../../http/viewer.js'
import { csrfField, when } from '../../http/views/layout.js'
import { projectFrame } from '../../http/views/project-frame.js'
import type { ProjectFacts } from '../../projects/project-queries.js'
import type { PendingInvitation } from '../invitations.js'
import { memberLabel, type Member } from '../member-store.js'

export interface MembersState {
  /** The invitation link just created, shown this once. */
  created?: { link: string; role: string; expiresAt: Date }
  notice?: string
  error?: string
}

/** The page; owner decides whether the owner's forms are shown (the posts check it again). */
export function membersPage(viewer: Viewer, project: ProjectFacts, members: readonly Member[], invitations: readonly PendingInvitation[], state: MembersState = {}): SafeHtml {
  const base = `/projects/${project.id}/members`
  const owner = project.role === 'owner'
  const me = viewer.session?.user.id
  const created = state.created
  const actions = (member: Member): SafeHtml | string => {
    if (!owner || member.user_id === me) return ''
    const other = member.role === 'owner' ? 'member' : 'owner'
    return html`<form method="post" action="${base}/${member.user_id}/role" class="inline">${csrfField(viewer)}<input type="hidden" name="role" value="${other}"><button type="submit" class="secondary">Make ${other}</button></form>
<form method="post" action="${base}/${member.user_id}/remove" class="inline">${csrfField(viewer)}<button type="submit" class="secondary">Remove</button></form>`
  }
  return projectFrame(
    viewer,
    project,
    'members',
    'Members',
    html`<h1>Members</h1>
${state.notice ? html`<p class="notice" role="status">${state.notice}</p>` : ''}
${state.error ? html`<p class="error" role="alert">${state.error}</p>` : ''}
<p class="hint">Owners change settings, keys, chat and members; members see everything, triage and assign issues, and start Investigate and Fix this.</p>
<table class="members"><thead><tr><th scope="col">Person</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Since</th><th scope="col"></th></tr></thead><tbody>
${members.map((member) => html`<tr data-member="${member.user_id}"><td>${memberLabel(member)}${member.user_id === me ? ' (you)' : ''}</td><td>${member.email ?? ''}</td><td>${member.role}</td><td>${when(member.created_at)}</td><td>${actions(member)}</td></tr>`)}
</tbody></table>
<form method="post" action="${base}/leave" class="inline">${csrfField(viewer)}<button type="submit" class="secondary">Leave project</button></form>
${
  owner
    ? html`<h2>Invite someone</h2>
${
  created
    ? html`<div class="notice new-key" role="status"><p>Send this link to the person you invite (as ${created.role}). <strong>Copy it now: it is shown this once</strong>, works once, and expires ${when(created.expiresAt)}.</p>
<pre class="key-value" id="invitation-link">${created.link}</pre></div>`
    : ''
}
<form method="post" action="${base}/invitations" class="stack">
  ${csrfField(viewer)}
  <label for="role">Role</label>
  <select id="role" name="role"><option value="member">member</option><option value="owner">owner</option></select>
  <button type="submit" class="primary">Create invitation link</button>
</form>
<h2>Pending invitations</h2>
${
  invitations.length === 0
    ? html`<p class="empty">No pending invitations.</p>`
    : html`<table class="invitations"><thead><tr><th scope="col">Role</th><th scope="col">Created</th><th scope="col">By</th><th scope="col">Expires</th><th scope="col"></th></tr></thead><tbody>
${invitations.map((invitation) => html`<tr><td>${invitation.role}</td><td>${when(invitation.created_at)}</td><td>${invitation.created_by_email ?? ''}</td><td>${when(invitation.expires_at)}</td><td><form method="post" action="${base}/invitations/${invitation.id}/revoke" class="inline">${csrfField(viewer)}<button type="submit" class="secondary">Revoke</button></form></td></tr>`)}
</tbody></table>`
}`
    : ''
}`,
  )
}
