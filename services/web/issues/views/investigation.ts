/**
 * The issue page's investigation panel: where the issue's latest investigation stands, its outcome
 * (the cause in the code with cited lines, a cause outside the code, or a stop with what to do next),
 * what it ran on and spent, and the owner's "Investigate again" button. Every text in an outcome was
 * written by a model that read event text from browsers, so all of it is escaped, and a link is made
 * only of an http(s) address.
 */
import { ACTIVE_STATES, type InvestigationView, type NotInvestigated } from '../../../investigator/read/investigation.js'
import { html, safeHref, type SafeHtml } from '../../http/html.js'
import type { Viewer } from '../../http/viewer.js'
import { csrfField, when } from '../../http/views/layout.js'

/** What the page says after the button was pressed (?investigation= on the redirect back). */
export type InvestigationNotice = 'started' | 'in_flight'

/** What the panel shows: the latest investigation, the issue's kind, the button's target and a notice. */
export interface InvestigationPanel {
  view: InvestigationView | undefined
  /** issues.kind: only error issues are investigated. */
  issueKind: string
  /** issues.noise: noise is never investigated. */
  noise: string
  /** Why admission did not investigate the issue (a new issue only). */
  note: NotInvestigated | undefined
  /** Where the button posts; undefined hides it (the viewer may not ask). */
  requestPath: string | undefined
  notice: InvestigationNotice | undefined
}

type Outcome = NonNullable<InvestigationView['outcome']>
type Citation = InvestigationView['citations'][number]

const NOTICES: Readonly<Record<InvestigationNotice, string>> = {
  started: 'Investigation requested: it is queued and starts as soon as a worker has a free slot.',
  in_flight: 'An investigation of this issue is already in progress, so no other was started. Its outcome appears here when it ends.',
}

const TRIGGERS: Readonly<Record<string, string>> = { auto: 'automatic', regression: 'the issue came back', manual: 'asked for by a person', agent: 'asked for by a coding agent' }

/** Token counts as people read them (12,345). */
export const NUMBER = new Intl.NumberFormat('en-US')

/** True while the investigation waits for or holds a worker. */
export function isActive(view: InvestigationView | undefined): boolean {
  return view !== undefined && (ACTIVE_STATES as readonly string[]).includes(view.state)
}

/** The panel, headed "Investigation". */
export function investigationSection(viewer: Viewer, panel: InvestigationPanel): SafeHtml {
  const { view } = panel
  const showButton = panel.requestPath !== undefined && panel.issueKind === 'error' && panel.noise === '' && !isActive(view)
  return html`<section class="investigation" aria-labelledby="investigation-heading">
<h2 id="investigation-heading">Investigation</h2>
${panel.notice ? html`<div class="notice" role="status">${NOTICES[panel.notice]}</div>` : ''}
${view ? investigationBody(view) : notInvestigated(panel)}
${showButton ? html`<form method="post" action="${panel.requestPath}" class="investigate">${csrfField(viewer)}<button type="submit" class="secondary">${view ? 'Investigate again' : 'Investigate now'}</button></form>` : ''}
</section>`
}

function notInvestigated(panel: InvestigationPanel): SafeHtml {
  if (panel.issueKind !== 'error') return html`<p class="empty">Only error issues are investigated.</p>`
  if (panel.note) return html`<p class="empty not-investigated" data-code="${panel.note.code}">Not investigated: ${panel.note.message}.</p>`
  if (panel.noise !== '') return html`<p class="empty not-investigated" data-code="noise">Not investigated: marked as noise, which is never investigated.</p>`
  return html`<p class="empty">Not investigated yet: an error issue is investigated once enough distinct real users or sessions run into it (INVESTIGATION_MIN_USERS within INVESTIGATION_WINDOW_DAYS) and its stack comes from the attached repository.</p>`
}

function investigationBody(view: InvestigationView): SafeHtml {
  if (view.state === 'queued') return html`<p><span class="status">queued</span> In progress since ${iso(view.createdAt)}: waiting for a worker.</p>${runFacts(view)}`
  if (view.state === 'analyzing') {
    return html`<p><span class="status">analyzing</span> In progress since ${iso(view.startedAt ?? view.createdAt)} (attempt ${view.attempts}).</p>${runFacts(view)}`
  }
  if (!view.outcome) return html`<p><span class="status">${view.state}</span> <span class="muted">No outcome was recorded.</span></p>${runFacts(view)}`
  return html`${outcomeBody(view.outcome, view.citations)}${runFacts(view)}`
}

function outcomeBody(outcome: Outcome, citations: readonly Citation[]): SafeHtml {
  switch (outcome.kind) {
    case 'investigated':
      return html`<p><span class="status">investigated</span> The cause is in the application's code.</p>
${summary(outcome)}${chain(outcome)}
<h3>What a fix must change</h3>
${outcome.fix ? html`<p class="prose">${outcome.fix}</p>` : html`<p class="muted">Not stated.</p>`}
${citationList(citations)}`
    case 'insight':
      return html`<p><span class="status">insight</span> The cause is outside the application's code.</p>
${outcome.cause ? causeFacts(outcome.cause) : ''}
${summary(outcome)}${chain(outcome)}
${outcome.fix ? html`<h3>What could change</h3><p class="prose">${outcome.fix}</p>` : ''}
${citations.length > 0 ? citationList(citations) : ''}`
    case 'needs_human':
      return html`<div class="stop" role="note">
<p><span class="status">needs_human</span> The investigation stopped: <code>${outcome.reasonCode}</code></p>
<p class="prose">${outcome.reasonMessage}</p>
<p class="prose"><strong>What to do:</strong> ${outcome.remediation}</p>
</div>`
    default:
      return html`<p><span class="status">${outcome.kind}</span></p>${summary(outcome)}`
  }
}

function summary(outcome: Outcome): SafeHtml | '' {
  return outcome.summary ? html`<h3>Summary</h3><p class="prose">${outcome.summary}</p>` : ''
}

function chain(outcome: Outcome): SafeHtml | '' {
  if (outcome.chain.length === 0) return ''
  return html`<h3>From the user's action to the error</h3><ol class="chain">${outcome.chain.map((step) => html`<li>${step}</li>`)}</ol>`
}

function causeFacts(cause: NonNullable<Outcome['cause']>): SafeHtml {
  return html`<h3>Cause</h3>
<dl class="facts">
  <dt>Kind</dt><dd>${cause.kind}</dd>
  <dt>Name</dt><dd><code>${cause.name}</code></dd>
  <dt>Evidence</dt><dd class="prose">${cause.evidence}</dd>
</dl>`
}

function citationList(citations: readonly Citation[]): SafeHtml {
  if (citations.length === 0) return html`<h3>Cited lines</h3><p class="muted">None.</p>`
  return html`<h3>Cited lines</h3><ul class="citations">${citations.map(citationItem)}</ul>`
}

function citationItem(citation: Citation): SafeHtml {
  // GitHub's convention, as the investigator's read face's links: one line is "path:6", a range "path:6-8".
  const lines = citation.lineEnd > citation.lineStart ? `${citation.lineStart}-${citation.lineEnd}` : `${citation.lineStart}`
  const label = html`<code>${citation.path}:${lines}</code>`
  const href = citation.url ? safeHref(citation.url) : undefined
  return html`<li>${href ? html`<a href="${href}">${label}</a>` : label}<pre class="quote">${citation.quote}</pre></li>`
}

/** What the run worked on and spent; shown with every investigation. */
function runFacts(view: InvestigationView): SafeHtml {
  const { usage } = view
  const confidence = view.outcome?.confidence
  return html`<dl class="facts run">
  <dt>Episode</dt><dd>${view.episode} · ${TRIGGERS[view.trigger] ?? view.trigger}</dd>
  <dt>Repository</dt><dd>${repository(view.repository)}</dd>
  ${view.release ? html`<dt>Release</dt><dd><code>${view.release}</code></dd>` : ''}
  <dt>Model</dt><dd>${view.model ? html`<code>${view.model}</code>` : html`<span class="muted">none</span>`}</dd>
  <dt>Turns</dt><dd>${usage.turns}</dd>
  <dt>Tokens</dt><dd>${NUMBER.format(usage.inputTokens)} in · ${NUMBER.format(usage.outputTokens)} out</dd>
  <dt>Duration</dt><dd>${duration(usage.durationMs)}</dd>
  ${confidence !== null && confidence !== undefined ? html`<dt>Confidence</dt><dd>${Math.round(confidence * 100)}%</dd>` : ''}
  ${view.finishedAt ? html`<dt>Finished</dt><dd>${iso(view.finishedAt)}</dd>` : ''}
</dl>`
}

/** name@sha, the short sha linking to the commit when the repository has a web address. */
function repository(repo: InvestigationView['repository']): SafeHtml {
  if (!repo) return html`<span class="muted">none</span>`
  if (!repo.commit) return html`<code>${repo.name}</code> <span class="muted">(commit unknown)</span>`
  const base = repo.url.replace(/\/+$/, '')
  const href = base ? safeHref(`${base}/commit/${encodeURIComponent(repo.commit)}`) : undefined
  const sha = html`<code>${repo.commit.slice(0, 7)}</code>`
  return html`<code>${repo.name}</code>@${href ? html`<a href="${href}" title="${repo.commit}">${sha}</a>` : sha}`
}

/** A run's time taken, in the largest unit that reads well (ms, s, min and s). */
export function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`
  const seconds = ms / 1000
  if (seconds < 60) return `${seconds.toFixed(1)} s`
  const minutes = Math.floor(seconds / 60)
  return `${minutes} min ${Math.floor(seconds % 60)} s`
}

/** A <time> of an ISO timestamp from a view. */
export function iso(text: string): SafeHtml {
  return when(new Date(text))
}
