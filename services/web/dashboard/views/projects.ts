/** The project pages: the list, one project's overview, its issues (one issue: issue-page.ts; settings: settings.ts). */
import { html, type SafeHtml } from '../html.js'
import { DIGEST_TIME } from '../../../digester/read.js'
import type { ProjectSetup } from '../../setup/project-facts.js'
import type { IssueList } from '../../../grouper/read/issue-list.js'
import type { KeySummary, ProjectFacts, ProjectSummary } from '../project-queries.js'
import type { Viewer } from '../viewer.js'
import { noiseExplanation } from './explanations.js'
import { layout, when, whenIn } from './layout.js'

type Tab = 'overview' | 'issues' | 'recordings' | 'known-problems' | 'digests' | 'settings'

/** A project page: crumbs, the project's tabs, then body. */
export function projectFrame(viewer: Viewer, project: { id: string; name: string }, tab: Tab, title: string, body: SafeHtml): SafeHtml {
  const base = `/projects/${project.id}`
  const link = (target: Tab, href: string, label: string) => html`<a href="${href}"${tab === target ? html` aria-current="page"` : ''}>${label}</a>`
  return layout(
    viewer,
    `${title} · ${project.name}`,
    html`<p class="crumbs"><a href="/">Projects</a> / <span>${project.name}</span></p>
<nav class="tabs" aria-label="Project">${link('overview', base, 'Overview')}${link('issues', `${base}/issues`, 'Issues')}${link('recordings', `${base}/recordings`, 'Recordings')}${link('known-problems', `${base}/known-problems`, 'Known problems')}${link('digests', `${base}/digests`, 'Digests')}${link('settings', `${base}/settings/codehost`, 'Settings')}</nav>
${body}`,
  )
}

/** A fact with its date ("attached since ..."), or what it is without one. */
export function yesNo(date: Date | null, yes: string, no: string): SafeHtml {
  return date ? html`<span class="ok">${yes}</span> <span class="muted">since ${when(date)}</span>` : html`<span class="muted">${no}</span>`
}

/** GET /: the signed-in person's projects. */
export function projectsPage(viewer: Viewer, projects: readonly ProjectSummary[]): SafeHtml {
  const list =
    projects.length === 0
      ? html`<p class="empty">You have no projects yet. A project is created when you approve a coding agent's setup request.</p>`
      : html`<ul class="cards">${projects.map(
          (project) => html`<li><a href="/projects/${project.id}"><strong>${project.name}</strong></a>
      <span class="muted">${project.issue_count} issue${project.issue_count === 1 ? '' : 's'} · created ${when(project.created_at)}</span></li>`,
        )}</ul>`
  return layout(viewer, 'Projects', html`<h1>Projects</h1>${list}`)
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

/** The badge a noise issue carries, naming why it is noise. */
export function noiseBadge(reason: string): SafeHtml {
  return html`<span class="badge noise">noise: ${noiseExplanation(reason)?.label ?? reason}</span>`
}

/** GET /projects/:id/issues; noise issues only with ?noise=1 (withNoise), each with its reason. */
export function issuesPage(viewer: Viewer, project: ProjectFacts, list: IssueList, withNoise: boolean): SafeHtml {
  const { issues, noiseCount } = list
  const base = `/projects/${project.id}/issues`
  const toggle =
    noiseCount === 0
      ? ''
      : withNoise
        ? html`<p class="noise-toggle"><a href="${base}">Hide noise</a> <span class="hint small">Noise issues are stored and counted like any other, but say nothing about your code (a browser warning, an extension's error, a script of another origin); the badge says which.</span></p>`
        : html`<p class="noise-toggle"><a href="${base}?noise=1">Show noise (${noiseCount})</a></p>`
  const table =
    issues.length === 0
      ? html`<p class="empty">${noiseCount > 0 ? 'No issues besides noise.' : 'No issues yet. Errors the SDK sends show up here within seconds.'}</p>`
      : html`<table class="issues"><thead><tr><th scope="col">Issue</th><th scope="col">Status</th><th scope="col" class="num">Events</th><th scope="col" class="num">Users</th><th scope="col">Last seen</th></tr></thead><tbody>
${issues.map(
  (issue) => html`<tr><td><a href="${base}/${issue.id}">${issue.title}</a>${issue.noise ? html` ${noiseBadge(issue.noise)}` : ''}${issue.culprit ? html`<div class="muted small">${issue.culprit}</div>` : ''}</td>
<td><span class="status">${issue.status}</span></td><td class="num">${issue.event_count}</td><td class="num">${issue.user_count}</td><td>${when(issue.last_seen)}</td></tr>`,
)}
</tbody></table>`
  return projectFrame(viewer, project, 'issues', 'Issues', html`<h1>Issues</h1>${toggle}${table}`)
}
