/**
 * GET /projects/:id/recordings: the project's session recordings, the most recently active first,
 * filtered by user, by a page visited and by whether an error happened, a page of them at a time.
 * The filters are a plain GET form, so a filtered list is a link that can be shared.
 */
import { html, type SafeHtml } from '../../http/html.js'
import type { ProjectFacts } from '../../projects/project-queries.js'
import { RECORDINGS_PER_PAGE, type RecordingFilters, type RecordingSummary } from '../../../recorder/read/recordings.js'
import type { Viewer } from '../../http/viewer.js'
import { when } from '../../http/views/layout.js'
import { projectFrame } from '../../http/views/project-frame.js'
import { duration, missingNote, replayPath, userCell } from './recording-sessions.js'

export interface RecordingListData {
  filters: RecordingFilters
  page: number
  recordings: RecordingSummary[]
  more: boolean
}

/** The list's address for these filters and page (page 1 is left out). */
export function listPath(projectId: string, filters: RecordingFilters, page: number): string {
  const query = new URLSearchParams()
  if (filters.user) query.set('user', filters.user)
  if (filters.page) query.set('page', filters.page)
  if (filters.hasError) query.set('errors', '1')
  if (page > 1) query.set('p', String(page))
  const text = query.toString()
  return `/projects/${projectId}/recordings${text ? `?${text}` : ''}`
}

/** The recordings list page. */
export function recordingsPage(viewer: Viewer, project: ProjectFacts, data: RecordingListData): SafeHtml {
  const { filters, page } = data
  const filtered = filters.user !== '' || filters.page !== '' || filters.hasError
  return projectFrame(
    viewer,
    project,
    'recordings',
    'Recordings',
    html`<h1>Recordings</h1>
<form method="get" action="/projects/${project.id}/recordings" class="filters">
  <div class="stack"><label for="filter-user">User</label><input type="text" id="filter-user" name="user" value="${filters.user}" placeholder="id, email or name"></div>
  <div class="stack"><label for="filter-page">Page visited</label><input type="text" id="filter-page" name="page" value="${filters.page}" placeholder="/checkout"></div>
  <div class="choice"><input type="checkbox" id="filter-errors" name="errors" value="1"${filters.hasError ? html` checked` : ''}><label for="filter-errors">With errors only</label></div>
  <button type="submit" class="secondary">Filter</button>${filtered ? html` <a href="/projects/${project.id}/recordings">Clear</a>` : ''}
</form>
${
  data.recordings.length === 0
    ? html`<p class="empty">${
        filtered
          ? 'No recording matches these filters.'
          : page > 1
            ? 'No recordings on this page.'
            : html`No recordings yet. Sessions are recorded when the browser SDK is started with <code>recording</code> turned on (<code>docs/recordings.md</code>, “Turning it on”).`
      }</p>`
    : recordingsTable(project.id, data.recordings)
}
${pager(project.id, data)}`,
  )
}

function recordingsTable(projectId: string, recordings: readonly RecordingSummary[]): SafeHtml {
  return html`<table class="recordings"><thead><tr><th scope="col">User</th><th scope="col">Started</th><th scope="col">Length</th><th scope="col">Pages</th><th scope="col" class="num">Clicks</th><th scope="col" class="num">Errors</th><th scope="col">Release</th><th scope="col">State</th></tr></thead><tbody>
${recordings.map(
  (recording) => html`<tr><td><a href="${replayPath(projectId, recording.id)}">${userCell(recording)}</a></td><td class="nowrap">${when(recording.started_at)}</td>
<td>${duration(recording.last_at.getTime() - recording.started_at.getTime())}</td>
<td>${recording.pages.length > 0 ? html`<code class="wrap">${recording.pages[0]}</code>${recording.pages.length > 1 ? html` <span class="muted small">+${recording.pages.length - 1} more</span>` : ''}` : html`<span class="muted">none</span>`}</td>
<td class="num">${recording.clicks}</td><td class="num">${recording.errors > 0 ? html`<span class="bad">${recording.errors}</span>` : '0'}</td>
<td>${recording.release ? html`<code>${recording.release}</code>` : html`<span class="muted">none</span>`}</td>
<td>${recording.closed_at ? 'closed' : 'open'}${missingNote(recording)}</td></tr>`,
)}
</tbody></table>`
}

function pager(projectId: string, data: RecordingListData): SafeHtml | '' {
  if (data.page <= 1 && !data.more) return ''
  const newer = data.page > 1 ? html`<a class="button secondary" href="${listPath(projectId, data.filters, data.page - 1)}" rel="prev">Newer</a>` : ''
  const older = data.more ? html`<a class="button secondary" href="${listPath(projectId, data.filters, data.page + 1)}" rel="next">Older</a>` : ''
  return html`<nav class="actions pager" aria-label="Pages"><span class="muted">Page ${data.page} · ${RECORDINGS_PER_PAGE} a page</span> ${newer} ${older}</nav>`
}
