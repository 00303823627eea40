/** A project's issue list (one issue: issue-page.ts). */
import type { IssueList } from '../../../grouper/read/issue-list.js'
import { html, type SafeHtml } from '../../http/html.js'
import type { Viewer } from '../../http/viewer.js'
import { when } from '../../http/views/layout.js'
import { projectFrame } from '../../http/views/project-frame.js'
import type { ProjectFacts } from '../../projects/project-queries.js'
import { noiseExplanation } from './explanations.js'

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
