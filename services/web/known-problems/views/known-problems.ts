/**
 * GET /projects/:id/known-problems: the project's known problems (docs/known-problems.md), the most
 * recent activity first, a page at a time: state, kind, page and target, users, matched
 * recordings, checks and whether it is published. Archived ones are hidden unless asked for. The
 * filters are a plain GET form, so a filtered list is a link that can be shared. Pages and targets
 * are recorded text: escaped like everything else.
 */
import { html, type SafeHtml } from '../../http/html.js'
import { FRICTION_KINDS, KNOWN_PROBLEMS_PER_PAGE, type KnownProblemFilters, type KnownProblemSummary } from '../../../matcher/read/known-problems.js'
import type { ProjectFacts } from '../../projects/project-queries.js'
import type { Viewer } from '../../http/viewer.js'
import { kindLabel, knownProblemPath, publicationLabel, stateLabel } from './known-problem-words.js'
import { csrfField, when } from '../../http/views/layout.js'
import { projectFrame } from '../../http/views/project-frame.js'

export interface KnownProblemListData {
  filters: KnownProblemFilters
  page: number
  problems: KnownProblemSummary[]
  more: boolean
  /** Archived known problems of the project, listed or not. */
  archivedCount: number
  /** projects.friction_auto_investigate: published known problems go to the investigator without a person's approval. */
  autoInvestigate: boolean
}

/** The list's address for these filters and page (page 1 and empty filters are left out). */
export function knownProblemsListPath(projectId: string, filters: KnownProblemFilters, page: number): string {
  const query = new URLSearchParams()
  if (filters.kind) query.set('kind', filters.kind)
  if (filters.published) query.set('published', '1')
  if (filters.archived) query.set('archived', '1')
  if (page > 1) query.set('p', String(page))
  const text = query.toString()
  return `/projects/${projectId}/known-problems${text ? `?${text}` : ''}`
}

/** The known problems list page. */
export function knownProblemsPage(viewer: Viewer, project: ProjectFacts, data: KnownProblemListData): SafeHtml {
  const { filters } = data
  const filtered = filters.kind !== '' || filters.published || filters.archived
  return projectFrame(
    viewer,
    project,
    'known-problems',
    'Known problems',
    html`<h1>Known problems</h1>
<p class="hint">Friction found in closed session recordings (rage clicks, dead clicks, errors right after a click), gathered across users into one known problem each, confirmed against further recordings, and published for investigation once the evidence holds.</p>
<form method="get" action="/projects/${project.id}/known-problems" class="filters">
  <div class="stack"><label for="filter-kind">Kind</label><select id="filter-kind" name="kind"><option value="">any</option>${FRICTION_KINDS.map(
    (kind) => html`<option value="${kind}"${filters.kind === kind ? html` selected` : ''}>${kindLabel(kind)}</option>`,
  )}</select></div>
  <div class="choice"><input type="checkbox" id="filter-published" name="published" value="1"${filters.published ? html` checked` : ''}><label for="filter-published">Published only</label></div>
  <div class="choice"><input type="checkbox" id="filter-archived" name="archived" value="1"${filters.archived ? html` checked` : ''}><label for="filter-archived">Show archived${data.archivedCount > 0 ? ` (${data.archivedCount})` : ''}</label></div>
  <button type="submit" class="secondary">Filter</button>${filtered ? html` <a href="/projects/${project.id}/known-problems">Clear</a>` : ''}
</form>
${data.problems.length === 0 ? html`<p class="empty">${emptyText(data, filtered)}</p>` : problemsTable(project.id, data.problems)}
${pager(project.id, data)}
${project.role === 'owner' ? autoInvestigation(viewer, project.id, data.autoInvestigate) : ''}`,
  )
}

/**
 * The owner's switch for projects.friction_auto_investigate (a setting: members do not see it). Off by default: a published known
 * problem waits (awaiting approval) until a person presses Investigate, since its evidence is
 * other people's sessions and an investigation spends model budget. Turning it on applies to
 * known problems published from then on; those already waiting keep their Investigate button.
 */
function autoInvestigation(viewer: Viewer, projectId: string, on: boolean): SafeHtml {
  return html`<h2>Investigation</h2>
<form method="post" action="/projects/${projectId}/known-problems/auto-investigate" class="auto-investigate" data-on="${on ? '1' : '0'}">${csrfField(viewer)}
<p>${on ? 'Published known problems go to the investigator at once.' : 'Published known problems wait for a person to press Investigate.'}
<span class="hint small">Applies to problems published from now on; those already waiting keep their button.</span></p>
<input type="hidden" name="on" value="${on ? '0' : '1'}"><button type="submit" class="secondary">${on ? 'Wait for a person instead' : 'Investigate published problems at once'}</button></form>`
}

function emptyText(data: KnownProblemListData, filtered: boolean): SafeHtml | string {
  if (filtered) return 'No known problem matches these filters.'
  if (data.page > 1) return 'No known problems on this page.'
  return html`No known problems yet. They are found in closed session recordings by the matcher (<code>docs/known-problems.md</code>); turn recording on in the browser SDK to have some.`
}

function problemsTable(projectId: string, problems: readonly KnownProblemSummary[]): SafeHtml {
  return html`<table class="known-problems"><thead><tr><th scope="col">Problem</th><th scope="col">State</th><th scope="col">Kind</th><th scope="col" class="num">Users</th><th scope="col" class="num">Recordings</th><th scope="col">Checks</th><th scope="col">Published</th><th scope="col">Last activity</th></tr></thead><tbody>
${problems.map(
  (problem) => html`<tr data-ticket="${problem.id}"><td><a href="${knownProblemPath(projectId, problem.id)}"><code class="wrap">${problem.target}</code></a><div class="muted small">on <code class="wrap">${problem.page}</code>${problem.environment ? html` · ${problem.environment}` : ''}</div></td>
<td>${stateLabel(problem.state)}</td><td>${kindLabel(problem.kind)}</td><td class="num">${problem.users}</td><td class="num">${problem.matched}</td>
<td>${checksCell(problem)}</td><td>${publicationLabel(problem)}</td><td class="nowrap">${when(problem.last_activity)}</td></tr>`,
)}
</tbody></table>`
}

/** "3 confirmed · 1 refuted · 0 inconclusive", or "none yet". */
export function checksCell(problem: Pick<KnownProblemSummary, 'checks_confirmed' | 'checks_refuted' | 'checks_inconclusive'>): SafeHtml {
  if (problem.checks_confirmed + problem.checks_refuted + problem.checks_inconclusive === 0) return html`<span class="muted">none yet</span>`
  return html`<span class="checks">${problem.checks_confirmed} confirmed · ${problem.checks_refuted} refuted · ${problem.checks_inconclusive} inconclusive</span>`
}

function pager(projectId: string, data: KnownProblemListData): SafeHtml | '' {
  if (data.page <= 1 && !data.more) return ''
  const newer = data.page > 1 ? html`<a class="button secondary" href="${knownProblemsListPath(projectId, data.filters, data.page - 1)}" rel="prev">Newer</a>` : ''
  const older = data.more ? html`<a class="button secondary" href="${knownProblemsListPath(projectId, data.filters, data.page + 1)}" rel="next">Older</a>` : ''
  return html`<nav class="actions pager" aria-label="Pages"><span class="muted">Page ${data.page} · ${KNOWN_PROBLEMS_PER_PAGE} a page</span> ${newer} ${older}</nav>`
}
