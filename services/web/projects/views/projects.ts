/** The project pages: the list and one project's overview (its issues: issues/views/; its settings: settings/views/). */
import { DIGEST_TIME } from '../../../digester/read.js'
import { html, type SafeHtml } from '../../http/html.js'
import type { Viewer } from '../../http/viewer.js'
import { layout, when, whenIn } from '../../http/views/layout.js'
import { projectFrame, yesNo } from '../../http/views/project-frame.js'
import type { ProjectSetup } from '../../setup/project-facts.js'
import type { KeySummary, ProjectFacts, ProjectSummary } from '../project-queries.js'

/** What an empty list says: how to get a project, and on the development start-up who owns its seeded one. */
function noProjects(developmentStartup: boolean): SafeHtml {
  return html`<div class="empty"><p>You have no projects yet. <a href="/projects/new">Create a project</a> to get its keys and the code to paste; approving a coding agent's setup request creates one too.</p>
${developmentStartup ? html`<p class="hint" id="development-owner">On this development start-up (no DATABASE_URL) the seeded project <code>e2e</code>, where the README's curl event goes, belongs to the first account that signed up, which is another account here.</p>` : ''}</div>`
}

/** GET /: the signed-in person's projects; developmentStartup: the embedded start-up, whose first account owns the seeded project. */
export function projectsPage(viewer: Viewer, projects: readonly ProjectSummary[], developmentStartup = false): SafeHtml {
  const list =
    projects.length === 0
      ? noProjects(developmentStartup)
      : html`<ul class="cards">${projects.map(
          (project) => html`<li><a href="/projects/${project.id}"><strong>${project.name}</strong></a>
      <span class="muted">${project.issue_count} issue${project.issue_count === 1 ? '' : 's'} · ${project.role} · created ${when(project.created_at)}</span></li>`,
        )}</ul>`
  return layout(viewer, 'Projects', html`<h1>Projects</h1><p class="actions"><a class="button primary" href="/projects/new" id="new-project">New project</a></p>${list}`)
}

/** The chat's state in words: broken (since when, in the project's zone, and why), connected or not. */
function chatState(setup: ProjectSetup, zone: string): SafeHtml {
  const { facts, times } = setup
  if (times.chat_broken_at) return html`<span class="bad">broken</span> <span class="muted">since ${whenIn(times.chat_broken_at, zone)}: ${facts.chat_error}</span> Connect chat again with a new webhook.`
  return facts.chat_connected ? yesNo(times.chat_connected_at, 'connected', '') : html`<span class="muted">not connected</span>`
}

/** GET /projects/:id: the setup facts (readProjectFacts, as the state endpoint and the tool server read them) and key ids. */
export function projectOverviewPage(viewer: Viewer, project: ProjectFacts, setup: ProjectSetup, keys: readonly KeySummary[]): SafeHtml {
  const { facts, times } = setup
  return projectFrame(
    viewer,
    project,
    'overview',
    'Overview',
    html`<h1>${project.name}</h1>
<dl class="facts">
  <dt>Project id</dt><dd><code>${project.id}</code></dd>
  <dt>Repository</dt><dd>${facts.codehost_repo ? html`<code>${facts.codehost_repo}</code> ${facts.codehost_connected ? yesNo(times.codehost_connected_at, 'attached', '') : ''}` : html`<span class="muted">none attached</span>`}</dd>
  <dt>Chat</dt><dd>${chatState(setup, project.timezone)}</dd>
  <dt>Daily digest</dt><dd>${DIGEST_TIME} ${project.timezone} · <a href="/projects/${project.id}/digests">latest digests</a></dd>
  <dt>Source maps</dt><dd>${facts.sourcemaps_uploaded ? yesNo(times.sourcemaps_uploaded_at, 'uploaded', '') : html`<span class="muted">none uploaded</span>`}</dd>
  <dt>Browser SDK</dt><dd>${facts.sdk_seen ? yesNo(times.sdk_seen_at, 'reporting', '') : html`<span class="muted">not seen yet</span>`}</dd>
  <dt>Created</dt><dd>${when(project.created_at)}</dd>
</dl>
<h2>Keys</h2>
<p class="hint">Only key ids are shown: the secret part is stored as a hash and cannot be displayed again.</p>
${
  keys.length === 0
    ? html`<p class="empty">No keys.</p>`
    : html`<table><thead><tr><th scope="col">Key id</th><th scope="col">Kind</th><th scope="col">Label</th><th scope="col">Created</th><th scope="col">State</th></tr></thead><tbody>
${keys.map((key) => html`<tr><td><code>${key.id}</code></td><td>${key.kind}</td><td>${key.label}</td><td>${when(key.created_at)}</td><td>${key.revoked_at ? html`revoked ${when(key.revoked_at)}` : 'active'}</td></tr>`)}
</tbody></table>`
}`,
  )
}
