/**
 * GET /projects/:id/recordings/:rid: one recorded session. Its facts, the replay (rrweb-player,
 * booted by /assets/replay.js from #replay's data attributes: the page carries no inline script,
 * and is served with REPLAY_PAGE_POLICY), and what the user did and what went wrong, told from the
 * recording's events. Every recorded string (user, pages, clicked text, messages) is escaped.
 */
import { html, type SafeHtml } from '../../http/html.js'
import type { ProjectFacts } from '../../projects/project-queries.js'
import { PLAYER_SCRIPT_PATH, PLAYER_STYLESHEET_PATH, REPLAY_SCRIPT_PATH } from '../recording-assets.js'
import type { ChunkWalk } from '../../../recorder/read/chunks.js'
import { REPLAY_CAP_BYTES } from '../../../recorder/read/replay.js'
import { missingChunks, type RecordingSummary } from '../../../recorder/read/recordings.js'
import { TIMELINE_ITEMS, type Timeline, type TimelineItem } from '../../../recorder/read/timeline.js'
import type { Viewer } from '../../http/viewer.js'
import { when } from '../../http/views/layout.js'
import { projectFrame } from '../../http/views/project-frame.js'
import { clock, duration, replayPath, userCell } from './recording-sessions.js'

export interface RecordingPageData {
  recording: RecordingSummary
  /** The timeline and the walk over the chunks that told it; undefined when the object store could not be read. */
  told: { timeline: Timeline; walk: ChunkWalk } | undefined
  /** The issue of each svc.error marker's event, by the SDK's event_id. */
  issues: Map<string, string>
  /** Where the replay opens (ms since 1970), from ?at=. */
  at: number | undefined
}

/** The session page. */
export function recordingPage(viewer: Viewer, project: ProjectFacts, data: RecordingPageData): SafeHtml {
  const { recording } = data
  return projectFrame(
    viewer,
    project,
    'recordings',
    'Recording',
    html`<p class="crumbs"><a href="/projects/${project.id}/recordings">Recordings</a></p>
<h1>Session of ${userCell(recording)}</h1>
${facts(recording)}
<h2>Replay</h2>
<link rel="stylesheet" href="${PLAYER_STYLESHEET_PATH}">
<div id="replay" class="replay" data-events="/api/v1/projects/${project.id}/recordings/${recording.id}/events"${data.at === undefined ? '' : html` data-at="${data.at}"`}></div>
<p id="replay-status" class="hint" role="status">The replay needs JavaScript; the list below tells the session without it.</p>
<script src="${PLAYER_SCRIPT_PATH}" defer></script>
<script src="${REPLAY_SCRIPT_PATH}" defer></script>
<h2>What the user did and what went wrong</h2>
${timelineSection(project.id, data)}`,
  )
}

function facts(recording: RecordingSummary): SafeHtml {
  const missing = missingChunks(recording)
  return html`<dl class="facts">
  <dt>User</dt><dd>${userCell(recording)}</dd>
  <dt>Release</dt><dd>${recording.release ? html`<code>${recording.release}</code>` : html`<span class="muted">none</span>`}</dd>
  <dt>Environment</dt><dd>${recording.environment ? html`<code>${recording.environment}</code>` : html`<span class="muted">none</span>`}</dd>
  <dt>Started</dt><dd>${when(recording.started_at)}</dd>
  <dt>Length</dt><dd>${duration(recording.last_at.getTime() - recording.started_at.getTime())} <span class="muted small">last activity ${when(recording.last_at)}</span></dd>
  <dt>Pages</dt><dd>${recording.pages.length > 0 ? html`<ol class="pages">${recording.pages.map((page) => html`<li><code class="wrap">${page}</code></li>`)}</ol>` : html`<span class="muted">none recorded</span>`}</dd>
  <dt>Clicks</dt><dd>${recording.clicks}</dd>
  <dt>Errors</dt><dd>${recording.errors > 0 ? html`<span class="bad">${recording.errors}</span>` : '0'}</dd>
  <dt>Chunks</dt><dd>${recording.chunks} stored${missing > 0 ? html` · <span class="bad">${missing} missing</span> <span class="muted small">(of ${recording.max_seq + 1}: the replay skips what they held)</span>` : ''}</dd>
  <dt>State</dt><dd>${recording.closed_at ? html`closed ${when(recording.closed_at)}` : html`open <span class="muted small">(closes 30 minutes after its last chunk)</span>`}</dd>
</dl>`
}

function timelineSection(projectId: string, data: RecordingPageData): SafeHtml {
  if (!data.told) return html`<p class="error">The object store that keeps the recording cannot be read right now, so its events cannot be told. Reload the page in a moment.</p>`
  const { timeline, walk } = data.told
  const notes: SafeHtml[] = []
  if (walk.unreadable.length > 0) notes.push(html`<p class="notice">${walk.unreadable.length} stored chunk${walk.unreadable.length === 1 ? '' : 's'} could not be read (seq ${walk.unreadable.slice(0, 10).join(', ')}${walk.unreadable.length > 10 ? '…' : ''}) and ${walk.unreadable.length === 1 ? 'is' : 'are'} left out.</p>`)
  if (walk.cappedAt !== undefined) notes.push(html`<p class="notice">The session is longer than a replay holds (${REPLAY_CAP_BYTES / 1024 / 1024} MiB of events): this tells it up to chunk ${walk.cappedAt}.</p>`)
  if (timeline.omitted > 0) notes.push(html`<p class="notice">The first ${TIMELINE_ITEMS} steps are listed; ${timeline.omitted} more are in the replay.</p>`)
  if (timeline.items.length === 0) return html`${notes}<p class="empty">The recording holds no page loads, clicks or errors.</p>`
  const start = timeline.start ?? 0
  const path = replayPath(projectId, data.recording.id)
  return html`${notes}<p class="hint small">Times from the start of the recording; each opens the replay there.</p>
<ol class="timeline">
${timeline.items.map((item) => html`<li class="step ${item.kind}"><a class="at" href="${path}?at=${item.at}#replay" data-at="${item.at}">${clock(item.at - start)}</a> ${step(projectId, item, data.issues)}</li>`)}
</ol>`
}

function step(projectId: string, item: TimelineItem, issues: Map<string, string>): SafeHtml {
  switch (item.kind) {
    case 'navigation':
      return html`<span class="status">page</span> <code class="wrap">${item.page}</code>`
    case 'click':
      return html`<span class="status">click</span> ${item.target ? html`on <code class="wrap">${item.target}</code>` : html`<span class="muted">on an element the recording does not name</span>`}`
    case 'error': {
      const issueId = item.eventId ? issues.get(item.eventId) : undefined
      return html`<span class="status bad">error</span> <code class="wrap">${item.message || 'no message'}</code>${issueId ? html` <a href="/projects/${projectId}/issues/${issueId}">open its issue</a>` : ''}`
    }
  }
}
