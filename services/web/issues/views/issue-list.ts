/**
 * A project's issue list (one issue: issue-page.ts): the filters form, a page of the issues that
 * match with each one's triage and regression mark, the next page by cursor, and the owner's bulk
 * actions on the ticked rows.
 */
import type { IssueSearch } from '../../../grouper/read/issue-list.js'
import { html, type SafeHtml } from '../../http/html.js'
import type { Viewer } from '../../http/viewer.js'
import { csrfField, when } from '../../http/views/layout.js'
import { projectFrame } from '../../http/views/project-frame.js'
import type { ProjectFacts } from '../../projects/project-queries.js'
import { noiseExplanation } from './explanations.js'
import { bulkBar, filtersForm } from './issue-filters.js'
import { triageBadge } from './triage-panel.js'

/** The badge a noise issue carries, naming why it is noise. */
export function noiseBadge(reason: string): SafeHtml {
  return html`<span class="badge noise">noise: ${noiseExplanation(reason)?.label ?? reason}</span>`
}

/** What the list page shows: the query it was asked with, and its page of issues or why the filter was refused. */
export interface IssueListView {
  query: URLSearchParams
  search: IssueSearch | undefined
  /** parseIssueFilter's message for a parameter it could not read. */
  error?: string
}

/** The list's address with its query's parameter name set to value (or removed, for undefined). */
function listHref(base: string, query: URLSearchParams, name: string, value: string | undefined): string {
  const rest = withParam(query, name, value)
  return rest ? `${base}?${rest}` : base
}

/** The query of the list with one parameter set (or removed, for undefined), and nothing the page added. */
function withParam(query: URLSearchParams, name: string, value: string | undefined): string {
  const next = new URLSearchParams(query)
  next.delete('changed')
  if (name !== 'cursor') next.delete('cursor')
  if (value === undefined) next.delete(name)
  else next.set(name, value)
  return next.toString()
}

/** GET /projects/:id/issues with the filters of its query. */
export function issuesPage(viewer: Viewer, project: ProjectFacts, view: IssueListView): SafeHtml {
  const base = `/projects/${project.id}/issues`
  const { query, search } = view
  const changed = query.get('changed')
  const notice = changed !== null && /^\d{1,4}$/.test(changed) ? html`<p class="notice bulk-notice" role="status">${changed === '1' ? '1 issue changed.' : `${changed} issues changed.`}</p>` : ''
  const body = view.error ? html`<p class="notice filter-error" role="alert">${view.error}</p>` : search ? list(viewer, base, query, search) : ''
  const mine = query.get('assignee') === 'me' ? html`<a href="${listHref(base, query, 'assignee', undefined)}">All issues</a>` : html`<a href="${listHref(base, query, 'assignee', 'me')}" class="assigned-to-me">Assigned to me</a>`
  return projectFrame(viewer, project, 'issues', 'Issues', html`<h1>Issues</h1>${notice}<p class="quick-filters">${mine}</p>${filtersForm(base, query)}${body}`)
}

function list(viewer: Viewer, base: string, query: URLSearchParams, search: IssueSearch): SafeHtml {
  const { issues, noiseCount, nextCursor } = search
  const withNoise = query.get('noise') === '1'
  const toggle =
    noiseCount === 0
      ? ''
      : withNoise
        ? html`<p class="noise-toggle"><a href="${listHref(base, query, 'noise', undefined)}">Hide noise</a> <span class="hint small">Noise issues are stored and counted like any other, but say nothing about your code (a browser warning, an extension's error, a script of another origin); the badge says which.</span></p>`
        : html`<p class="noise-toggle"><a href="${listHref(base, query, 'noise', '1')}">Show noise (${noiseCount})</a></p>`
  if (issues.length === 0) {
    const filtered = [...query.keys()].some((name) => name !== 'changed' && name !== 'noise')
    const empty = filtered ? 'No issues match these filters.' : noiseCount > 0 ? 'No issues besides noise.' : 'No issues yet. Errors the SDK sends show up here within seconds.'
    return html`${toggle}<p class="empty">${empty}</p>`
  }
  const next = nextCursor ? html`<p class="pager"><a rel="next" href="${listHref(base, query, 'cursor', nextCursor)}">Next page</a></p>` : ''
  return html`${toggle}<form method="post" action="${`${base}/bulk`}" class="bulk">${csrfField(viewer)}<input type="hidden" name="back" value="${withParam(query, 'cursor', undefined)}">
${bulkBar()}
<table class="issues"><thead><tr><th scope="col"><span class="sr-only">Select</span></th><th scope="col">Issue</th><th scope="col">Triage</th><th scope="col">Assignee</th><th scope="col">Status</th><th scope="col" class="num">Events</th><th scope="col" class="num">Users</th><th scope="col">Last seen</th></tr></thead><tbody>
${issues.map(
  (issue) => html`<tr data-issue="${issue.id}"><td><input type="checkbox" name="issue" value="${issue.id}" aria-labelledby="${`title-${issue.id}`}"></td>
<td><span id="${`title-${issue.id}`}"><a href="${`${base}/${issue.id}`}">${issue.title}</a>${issue.noise ? html` ${noiseBadge(issue.noise)}` : ''}</span>${issue.merged_count > 0 ? html` <span class="muted small">+${issue.merged_count} merged</span>` : ''}${issue.culprit ? html`<div class="muted small">${issue.culprit}</div>` : ''}</td>
<td class="nowrap">${triageBadge(issue.triage, issue.regressed_at)}</td><td class="assignee">${issue.assignee_label ?? html`<span class="muted">—</span>`}</td><td><span class="status">${issue.status}</span></td><td class="num">${issue.event_count}</td><td class="num">${issue.user_count}</td><td>${when(issue.last_seen)}</td></tr>`,
)}
</tbody></table>
</form>
${next}`
}
