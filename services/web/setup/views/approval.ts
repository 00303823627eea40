/**
 * The approval page an agent's auth_url opens, and what follows it. Agent name, project name and
 * git remote come from whoever registered the session: they are shown as text and nothing else.
 */
import type { SessionForApproval } from '../approval.js'
import { html, type SafeHtml } from '../../http/html.js'
import type { Viewer } from '../../http/viewer.js'
import { csrfField, layout, when } from '../../http/views/layout.js'

/** Signed out: what the link is for, and the ways to sign in that come back here. */
export function approvalSignedOutPage(viewer: Viewer, pollId: string, codehost: boolean): SafeHtml {
  const next = encodeURIComponent(`/setup/${pollId}`)
  return layout(
    viewer,
    'Approve a setup request',
    html`<section class="panel narrow">
  <h1>A coding agent asks to set up error monitoring</h1>
  <p>Sign in or create an account to see what it asks for and approve or decline it. You come back to this page afterwards.</p>
  <p class="actions">
    <a class="button primary" href="/signin?next=${next}">Sign in</a>
    <a class="button secondary" href="/signup?next=${next}">Create an account</a>
    ${codehost ? html`<a class="button secondary" href="/auth/codehost/start?next=${next}">Sign in with the code host</a>` : ''}
  </p>
</section>`,
  )
}

function facts(session: SessionForApproval): SafeHtml {
  return html`<dl class="facts">
    <dt>Agent</dt><dd class="agent-name">${session.agentName}</dd>
    <dt>Project</dt><dd class="project-name">${session.projectName}</dd>
    <dt>Repository</dt><dd class="git-remote">${session.gitRemote || html`<span class="muted">none given</span>`}</dd>
    <dt>Request expires</dt><dd>${when(session.expiresAt)}</dd>
  </dl>`
}

/** Signed in: the request, the project choice, Approve and Decline; a closed request shows why and no buttons. */
export function approvalPage(viewer: Viewer, session: SessionForApproval, projects: ReadonlyArray<{ id: string; name: string }>, error?: string): SafeHtml {
  const action = `/setup/${encodeURIComponent(session.pollId)}`
  const body = session.approvable
    ? html`<form method="post" action="${action}/approve" class="stack">
    ${csrfField(viewer)}
    <fieldset>
      <legend>Which project should receive its errors?</legend>
      <div class="choice"><input type="radio" id="project-new" name="project" value="new" checked>
        <label for="project-new">Create a new project named <strong>${session.projectName}</strong></label></div>
      ${projects.map(
        (project) => html`<div class="choice"><input type="radio" id="project-${project.id}" name="project" value="${project.id}">
        <label for="project-${project.id}">Use my project <strong>${project.name}</strong></label></div>`,
      )}
    </fieldset>
    <p class="hint">Approving creates keys for the project and hands them to the agent. Only approve an agent you started yourself.</p>
    <div class="actions">
      <button type="submit" class="primary" id="approve">Approve</button>
      <button type="submit" class="danger" formaction="${action}/decline" id="decline">Decline</button>
    </div>
  </form>`
    : html`<p class="message closed" role="status">${session.message}</p>`
  return layout(
    viewer,
    'Approve a setup request',
    html`<section class="panel">
  <h1>${session.approvable ? 'A coding agent asks to set up error monitoring' : 'This setup request is closed'}</h1>
  ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
  ${facts(session)}
  ${body}
</section>`,
  )
}

/** After Approve: the agent goes on by itself. */
export function approvedPage(viewer: Viewer, session: SessionForApproval, projectId: string): SafeHtml {
  return layout(
    viewer,
    'Approved',
    html`<section class="panel narrow">
  <h1>Approved</h1>
  <p class="message" role="status">The agent <strong>${session.agentName}</strong> now has the keys for its project and will continue on its own. You can close this tab.</p>
  <p class="actions"><a class="button secondary" href="/projects/${projectId}">Open the project</a></p>
</section>`,
  )
}

/** After Decline. */
export function declinedPage(viewer: Viewer, session: SessionForApproval): SafeHtml {
  return layout(
    viewer,
    'Declined',
    html`<section class="panel narrow">
  <h1>Declined</h1>
  <p class="message" role="status">The request from <strong>${session.agentName}</strong> was declined. The agent is told and stops; no project or keys were created.</p>
</section>`,
  )
}
