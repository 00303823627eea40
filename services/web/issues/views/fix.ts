/**
 * The issue page's fix panel, under the investigation: where the issue's latest fix stands, the pull
 * request it opened (how it was delivered, its head commit, the repository's CI), the review, the
 * executed evidence, or the stop with what to do next; and the owner's "Fix this" button. Summaries,
 * reasons, commands and output come from a model and from the user's repository: all of it is
 * escaped, and a link is made only of an http(s) address.
 */
import type { FixView } from '../../../investigator/read/fix.js'
import { html, safeHref, type SafeHtml } from '../../http/html.js'
import type { Viewer } from '../../http/viewer.js'
import { duration, iso, NUMBER } from './investigation.js'
import { csrfField } from '../../http/views/layout.js'

/** What "Fix this" answered, named by ?fix= on the redirect back (requestFix's results). */
export const FIX_NOTICES = ['fix_started', 'investigation_started', 'in_flight'] as const
export type FixNotice = (typeof FIX_NOTICES)[number]

/** What the panel shows: the latest fix, whether the button may be pressed, and a notice. */
export interface FixPanel {
  view: FixView | undefined
  /** issues.kind: only error issues are fixed. */
  issueKind: string
  /** Where the button posts; undefined hides it (the viewer may not ask). */
  requestPath: string | undefined
  /** Why Fix this is not offered for this issue (fixWithheld), if it is not. */
  withheld: string | undefined
  /** An investigation of the issue is queued or analyzing: pressing would start nothing. */
  investigationActive: boolean
  notice: FixNotice | undefined
}

type Evidence = FixView['evidence'][number]

const NOTICES: Readonly<Record<FixNotice, string>> = {
  fix_started: 'Fix requested: it is queued and starts as soon as a worker has a free slot. Started by a person, it may open ready for review.',
  investigation_started: 'No root cause in the code is known yet, so an investigation was started first. When it finds the cause in the code, the fix follows on its own.',
  in_flight: 'An investigation or a fix of this issue is already in progress, so nothing else was started. Its outcome appears here when it ends.',
}

const STATES: Readonly<Record<string, string>> = {
  queued: 'Waiting for a worker.',
  fixing: 'Building the fix in a sandbox and running its checks.',
  pr_draft: 'A draft pull request is open.',
  pr_created: 'A pull request is open, ready for review.',
  needs_human: 'The fix stopped.',
  merged: 'Its pull request was merged: the issue is resolved in the next release.',
  closed: 'Its pull request was closed without merging.',
}

const TRIGGERS: Readonly<Record<string, string>> = { auto: 'automatic', manual: 'started by a person', agent: 'asked for by a coding agent (draft only)' }

const DELIVERIES: Readonly<Record<string, string>> = { draft: 'draft', ready: 'ready for review', limited_draft: 'limited draft — not verified' }

/** Repository CI on the head commit. No check at all is "no checks", never passing. */
const CI_STATES: Readonly<Record<string, string>> = { '': 'not read yet', none: 'no checks', pending: 'pending', success: 'passing', failure: 'failing' }

const CHECKS: Readonly<Record<string, string>> = { setup: 'install', E0: 'E0 build', E1: 'E1 suite', E2: 'E2 regression test' }

/** True while the fix waits for or holds a worker. */
export function isFixActive(view: FixView | undefined): boolean {
  return view !== undefined && (view.state === 'queued' || view.state === 'fixing')
}

/** The panel, headed "Fix"; nothing for an issue that has no fix and could not get one. */
export function fixSection(viewer: Viewer, panel: FixPanel): SafeHtml | '' {
  const { view } = panel
  const canAsk = panel.requestPath !== undefined && panel.issueKind === 'error' && panel.withheld === undefined
  if (!view && !canAsk && !panel.notice) return panel.withheld && panel.issueKind === 'error' ? withheldSection(panel.withheld) : ''
  const showButton = canAsk && !isFixActive(view) && !panel.investigationActive
  return html`<section class="fix" aria-labelledby="fix-heading">
<h2 id="fix-heading">Fix</h2>
${panel.notice ? html`<div class="notice" role="status">${NOTICES[panel.notice]}</div>` : ''}
${view ? fixBody(view) : html`<p class="empty">No fix yet: a fix follows an investigation that finds the cause in the application's code.${showButton ? ' Fix this starts one now, investigating first when no cause is known.' : ''}</p>`}
${showButton ? html`<form method="post" action="${panel.requestPath}" class="fix-this">${csrfField(viewer)}<button type="submit">Fix this</button></form>` : ''}
</section>`
}

function withheldSection(why: string): SafeHtml {
  return html`<section class="fix" aria-labelledby="fix-heading">
<h2 id="fix-heading">Fix</h2>
<p class="empty fix-withheld">Fix this is not offered: ${why}.</p>
</section>`
}

function fixBody(view: FixView): SafeHtml {
  return html`<p><span class="status">${view.state}</span> ${STATES[view.state] ?? ''}</p>
${view.pullRequest ? pullRequest(view.pullRequest, view.ci) : ''}
${view.held ? heldLine(view.held) : ''}
${view.stop ? stop(view.stop) : ''}
${view.summary ? html`<h3>Summary</h3><p class="prose">${view.summary}</p>` : ''}
${view.review ? review(view.review) : ''}
${evidenceTable(view)}
${runFacts(view)}`
}

function pullRequest(pr: NonNullable<FixView['pullRequest']>, ci: FixView['ci']): SafeHtml {
  const href = safeHref(pr.url)
  const label = html`#${pr.number}`
  const delivery = DELIVERIES[pr.delivery] ?? pr.delivery
  return html`<dl class="facts pull-request">
  <dt>Pull request</dt><dd>${href ? html`<a href="${href}" rel="noreferrer">${label}</a>` : label} <span class="badge ${pr.delivery === 'limited_draft' ? 'unverified' : pr.delivery === 'ready' ? 'ready' : 'draft'}">${delivery}</span></dd>
  <dt>Head commit</dt><dd>${pr.headSha ? html`<code title="${pr.headSha}">${pr.headSha.slice(0, 7)}</code>` : html`<span class="muted">unknown</span>`}</dd>
  <dt>Repository CI</dt><dd><span class="ci ci-${ci.state || 'unread'}">${CI_STATES[ci.state] ?? ci.state}</span>${ci.checkedAt ? html` <span class="muted small">read ${iso(ci.checkedAt)}</span>` : ''}</dd>
</dl>`
}

/** After a merge: whether the fix held in production, or what it waits for (the release name is the browser's text, escaped). */
function heldLine(held: NonNullable<FixView['held']>): SafeHtml {
  const badge = held.state === 'held' ? 'ready' : held.state === 'came_back' ? 'gap' : 'draft'
  return html`<p class="fix-held">In production: <span class="badge ${badge}">${held.state === 'came_back' ? 'came back' : held.state}</span> ${held.verdict}${held.checkedAt ? html` <span class="muted small">checked ${held.checkedAt}</span>` : ''}</p>`
}

function stop(reason: NonNullable<FixView['stop']>): SafeHtml {
  return html`<div class="stop" role="note">
<p>Stopped: <code>${reason.reasonCode}</code></p>
<p class="prose">${reason.reasonMessage}</p>
${reason.remediation ? html`<p class="prose"><strong>What to do:</strong> ${reason.remediation}</p>` : ''}
</div>`
}

function review(verdict: NonNullable<FixView['review']>): SafeHtml {
  return html`<h3>Review</h3>
<p><span class="verdict verdict-${verdict.verdict === 'approved' ? 'approved' : 'vetoed'}">${verdict.verdict}</span>${verdict.reason ? html` <span class="prose">${verdict.reason}</span>` : ''}</p>`
}

function evidenceTable(view: FixView): SafeHtml {
  if (view.evidence.length === 0) return html`<h3>Evidence</h3><p class="muted">No check has run${view.attempts > 1 ? ` in attempt ${view.attempts}` : ''}.</p>`
  return html`<h3>Evidence</h3>
<p class="hint small">Every check was executed in a sandbox and recorded${view.attempts > 1 ? ` (attempt ${view.attempts})` : ''}; a sandbox failure is never evidence.</p>
<table class="evidence"><thead><tr><th scope="col">Check</th><th scope="col">Where</th><th scope="col">Command</th><th scope="col">Exit</th><th scope="col">Held</th><th scope="col">Infra error</th></tr></thead><tbody>
${view.evidence.map(evidenceRow)}
</tbody></table>`
}

function evidenceRow(row: Evidence): SafeHtml {
  const exit = row.timedOut ? html`<span class="bad">timed out</span>` : row.exitCode === null ? html`<span class="muted">none</span>` : html`${row.exitCode}`
  const output = row.excerpt ? html`<details class="excerpt"><summary>Output</summary><pre class="excerpt">${row.excerpt}</pre></details>` : ''
  return html`<tr><td class="nowrap">${CHECKS[row.tier] ?? row.tier}</td><td>${row.phase}</td><td><code class="wrap">${row.command}</code>${output}</td>
<td>${exit}</td><td>${row.met ? html`<span class="ok">yes</span>` : html`<span class="bad">no</span>`}</td><td>${row.infraError ? html`<span class="bad">${row.infraError}</span>` : html`<span class="muted">none</span>`}</td></tr>`
}

/** What the fix worked on and spent. */
function runFacts(view: FixView): SafeHtml {
  const { usage } = view
  return html`<dl class="facts run">
  <dt>Trigger</dt><dd>${TRIGGERS[view.trigger] ?? view.trigger}</dd>
  ${view.branch ? html`<dt>Branch</dt><dd><code>${view.branch}</code></dd>` : ''}
  ${view.testFile ? html`<dt>Regression test</dt><dd><code>${view.testFile}</code></dd>` : ''}
  <dt>Attempts</dt><dd>${view.attempts}</dd>
  <dt>Turns</dt><dd>${usage.turns}</dd>
  <dt>Tokens</dt><dd>${NUMBER.format(usage.inputTokens)} in · ${NUMBER.format(usage.outputTokens)} out</dd>
  <dt>Duration</dt><dd>${duration(usage.durationMs)}</dd>
  <dt>Requested</dt><dd>${iso(view.createdAt)}</dd>
  ${view.finishedAt ? html`<dt>Finished</dt><dd>${iso(view.finishedAt)}</dd>` : ''}
</dl>`
}
