/**
 * GET /projects/:id/issues/:issue_id: one issue told in source terms. Its title and culprit as the
 * grouper normalised them, its investigation (investigation.ts) and fix (fix.ts), the latest event's
 * symbolicated frames and breadcrumbs, the recorded sessions it happened in, where and when it
 * happens, and the raw messages of its latest events (the title replaces one user's data).
 */
import { html, type SafeHtml } from '../../http/html.js'
import type { LinkedPullRequest } from '../../mcp/pull-requests.js'
import type { DayCount, Facets, IssueDetail, LatestEvent, RecentEvent } from '../../../grouper/read/issues.js'
import type { ProjectFacts } from '../../projects/project-queries.js'
import type { IssueSession } from '../../../recorder/read/recordings.js'
import { browserLabel } from '../../../grouper/read/user-agent.js'
import type { Viewer } from '../../http/viewer.js'
import { breadcrumbsSection } from './breadcrumbs.js'
import { noiseExplanation } from './explanations.js'
import { dailyChart, facetsSection } from './facets.js'
import { fixSection, type FixPanel } from './fix.js'
import { stackSection } from './frames.js'
import { investigationSection, type InvestigationPanel } from './investigation.js'
import { historySection, type HistoryLine } from './issue-history.js'
import { triageSection, type TriagePanel } from './triage-panel.js'
import { linkedPullRequestsSection } from './linked-pull-requests.js'
import { when } from '../../http/views/layout.js'
import { projectFrame } from '../../http/views/project-frame.js'
import { noiseBadge } from './issue-list.js'
import { sessionsSection } from '../../recordings/views/recording-sessions.js'

export interface IssuePageData {
  issue: IssueDetail
  latest: LatestEvent | undefined
  facets: Facets
  days: DayCount[]
  recent: RecentEvent[]
  /** The recorded sessions the issue happened in, newest first. */
  sessions: IssueSession[]
  investigation: InvestigationPanel
  fix: FixPanel
  /** A friction-kind issue's known problem page, when it has one. */
  knownProblem?: string | undefined
  /** Pull requests coding agents opened and linked (link_pull_request). */
  linked?: readonly LinkedPullRequest[]
  /** The team's triage and its forms, and the issue's history (newest first). */
  triage: TriagePanel
  history: readonly HistoryLine[]
}

/** How well the issue's title and culprit read in source terms (issues.detail_quality). */
const DETAIL_QUALITY = ['no location in the code', 'bundle location only (no source map)', 'source-mapped', 'source-mapped, with source lines']

/** The issue page. */
export function issuePage(viewer: Viewer, project: ProjectFacts, data: IssuePageData): SafeHtml {
  const { issue, latest } = data
  const noise = noiseExplanation(issue.noise)
  return projectFrame(
    viewer,
    project,
    'issues',
    issue.title,
    html`<h1 class="issue-title">${issue.title}${issue.noise ? html` ${noiseBadge(issue.noise)}` : ''}</h1>
${issue.culprit ? html`<p class="culprit"><code>${issue.culprit}</code></p>` : ''}
${noise ? html`<div class="notice noise-note" role="note"><strong>Noise: ${noise.label}.</strong> ${noise.text}</div>` : ''}
${data.knownProblem ? html`<p class="notice known-problem-link">Friction seen in session recordings: <a href="${data.knownProblem}">open its known problem</a> for the recordings, checks and publication.</p>` : ''}
<dl class="facts">
  <dt>Status</dt><dd><span class="status">${issue.status}</span></dd>
  <dt>Events</dt><dd>${issue.event_count}</dd>
  <dt>Users</dt><dd>${issue.user_count}</dd>
  <dt>Sessions</dt><dd>${issue.session_count}</dd>
  <dt>First seen</dt><dd>${when(issue.first_seen)}</dd>
  <dt>Last seen</dt><dd>${when(issue.last_seen)}</dd>
  <dt>Grouping</dt><dd>version ${issue.grouping_version} · ${DETAIL_QUALITY[issue.detail_quality] ?? `detail ${issue.detail_quality}`}</dd>
</dl>
${triageSection(viewer, data.triage)}
${investigationSection(viewer, data.investigation)}
${fixSection(viewer, data.fix)}
${linkedPullRequestsSection(data.linked ?? [])}
${historySection(data.history, data.triage.issuesBase)}
<h2>Events per day</h2>
${dailyChart(data.days)}
<h2>Latest event</h2>
${latest ? latestEvent(latest) : html`<p class="empty">No stored event.</p>`}
<h2>Sessions</h2>
${sessionsSection(project.id, data.sessions)}
<h2>Seen in</h2>
${facetsSection(data.facets, Number(issue.event_count))}
<h2>Recent events</h2>
${recentEvents(data.recent)}`,
  )
}

function latestEvent(event: LatestEvent): SafeHtml {
  return html`<dl class="facts">
  <dt>Occurred</dt><dd>${when(event.occurred_at)} <span class="muted small">received ${when(event.received_at)}</span></dd>
  <dt>Error</dt><dd>${event.errorType ? html`<code>${event.errorType}</code>` : html`<span class="muted">no type</span>`}</dd>
  <dt>Message</dt><dd>${event.message ? html`<pre class="message">${event.message}</pre>` : html`<span class="muted">empty</span>`}</dd>
  ${event.url ? html`<dt>Page</dt><dd><code>${event.url}</code></dd>` : ''}
  <dt>Browser</dt><dd>${browserLabel(event.userAgent)}${event.userAgent ? html` <div class="muted small"><code>${event.userAgent}</code></div>` : ''}</dd>
  <dt>Release</dt><dd>${event.release ? html`<code>${event.release}</code>` : html`<span class="muted">none</span>`}</dd>
  <dt>Environment</dt><dd>${event.environment ? html`<code>${event.environment}</code>` : html`<span class="muted">none</span>`}</dd>
</dl>
<h3>Stack</h3>
${stackSection(event)}
<h3>Breadcrumbs</h3>
${breadcrumbsSection(event.breadcrumbs, event.occurred_at)}`
}

function recentEvents(events: readonly RecentEvent[]): SafeHtml {
  if (events.length === 0) return html`<p class="empty">No stored events.</p>`
  return html`<p class="hint small">The latest ${events.length} events with their messages as sent; the title above replaces values that differ between users.</p>
<table class="events"><thead><tr><th scope="col">Occurred</th><th scope="col">Browser</th><th scope="col">Release</th><th scope="col">Environment</th><th scope="col">Message</th></tr></thead><tbody>
${events.map(
  (event) => html`<tr><td class="nowrap">${when(event.occurred_at)}</td><td>${event.browser}</td><td>${event.release ? html`<code>${event.release}</code>` : html`<span class="muted">none</span>`}</td>
<td>${event.environment ?? html`<span class="muted">none</span>`}</td><td><code class="wrap">${event.errorType ? `${event.errorType}: ` : ''}${event.message}</code></td></tr>`,
)}
</tbody></table>`
}
