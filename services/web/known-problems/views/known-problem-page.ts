/**
 * GET /projects/:id/known-problems/:ticket_id: one known problem. Its facts, its publication with
 * the gate's thresholds met or missed, the same-fix question when the gate asked it, the
 * recordings it was matched in (each replay opening at the moment of friction), its checks, and the
 * investigation and fix of its friction-kind issue with the issue page's own panels. Page, target
 * and narrative are recorded text and user labels the SDK's: all escaped.
 */
import type { FixView } from '../../../investigator/read/fix.js'
import type { InvestigationView } from '../../../investigator/read/investigation.js'
import { html, type SafeHtml } from '../../http/html.js'
import { dueForUnpublishing, PUBLISH_MIN_CONFIRMED, PUBLISH_MIN_SHARE, PUBLISH_MIN_USERS, thresholds, UNPUBLISH_BELOW_SHARE, UNPUBLISH_MIN_CHECKS } from '../../../matcher/read/gate.js'
import { LISTED_EVIDENCE, type KnownProblemCheck, type KnownProblemDetail, type MatchedRecording } from '../../../matcher/read/known-problems.js'
import type { ProjectFacts } from '../../projects/project-queries.js'
import type { Viewer } from '../../http/viewer.js'
import { fixSection } from '../../issues/views/fix.js'
import { investigationSection, isActive, type InvestigationNotice } from '../../issues/views/investigation.js'
import { checksCell } from './known-problems.js'
import { kindLabel, knownProblemPath, publicationLabel, stateLabel } from './known-problem-words.js'
import { csrfField, when } from '../../http/views/layout.js'
import { projectFrame } from '../../http/views/project-frame.js'
import { replayPath, userCell } from '../../recordings/views/recording-sessions.js'

export interface KnownProblemPageData {
  problem: KnownProblemDetail
  recordings: MatchedRecording[]
  checks: KnownProblemCheck[]
  investigation: InvestigationView | undefined
  fix: FixView | undefined
  /** The owner's Investigate button (where it posts) and what the page says after it was pressed. */
  investigate: { requestPath: string; notice: InvestigationNotice | undefined }
}

const SAME_FIX: Readonly<Record<string, string>> = {
  asked: 'asked, not answered yet',
  same: 'yes: one fix solves both',
  different: 'no: each needs its own fix',
}

/** The known problem's page. */
export function knownProblemPage(viewer: Viewer, project: ProjectFacts, data: KnownProblemPageData): SafeHtml {
  const { problem } = data
  return projectFrame(
    viewer,
    project,
    'known-problems',
    `Known problem: ${problem.target}`,
    html`<p class="crumbs"><a href="/projects/${project.id}/known-problems">Known problems</a></p>
<h1 class="issue-title">${kindLabel(problem.kind)} on <code class="wrap">${problem.target}</code></h1>
${facts(project.id, problem)}
<h2>Publication</h2>
${publication(problem)}
${sameFix(viewer, project.id, problem)}
<h2>Recordings</h2>
${recordingsSection(project.id, problem, data.recordings)}
<h2>Checks</h2>
${checksSection(project.id, problem, data.checks)}
${investigationPanel(viewer, data)}
${fixSection(viewer, { view: data.fix, issueKind: 'friction', requestPath: undefined, withheld: undefined, investigationActive: false, notice: undefined })}`,
  )
}

const WAITING: Readonly<Record<string, string>> = {
  awaiting_approval: 'Published: its investigation waits for a person to approve it. Press Investigate to send it to the investigator (or set the project to investigate published known problems at once: docs/known-problems.md).',
  candidate: 'Not published yet: its checks do not bear it out enough. You can still send it to the investigator.',
  archived: 'Archived: it is not investigated.',
}

/**
 * The issue page's investigation panel, read for the problem's issue, with the owner's Investigate
 * (the issue page's button is for error issues only): offered while no run is in flight and the
 * problem is not archived. Before its first run the panel says why it is waiting.
 */
function investigationPanel(viewer: Viewer, data: KnownProblemPageData): SafeHtml {
  const { problem, investigation, investigate } = data
  const offered = problem.state !== 'archived' && !isActive(investigation)
  const button = offered
    ? html`<form method="post" action="${investigate.requestPath}" class="investigate">${csrfField(viewer)}<button type="submit" class="${investigation ? 'secondary' : ''}">${investigation ? 'Investigate again' : 'Investigate'}</button></form>`
    : ''
  if (investigation) {
    return html`${investigationSection(viewer, { view: investigation, issueKind: 'friction', noise: '', note: undefined, requestPath: undefined, notice: investigate.notice })}${button}`
  }
  return html`<section class="investigation" aria-labelledby="investigation-heading"><h2 id="investigation-heading">Investigation</h2>
<p class="empty" data-state="${problem.state}">Not investigated yet. ${WAITING[problem.state] ?? ''}</p>
${button}</section>`
}

function facts(projectId: string, problem: KnownProblemDetail): SafeHtml {
  const others = problem.pages.filter((page) => page !== problem.page)
  return html`<dl class="facts">
  <dt>State</dt><dd>${stateLabel(problem.state)}${problem.state === 'archived' && problem.previous_state ? html` <span class="muted small">(was ${stateLabel(problem.previous_state)})</span>` : ''}</dd>
  <dt>Kind</dt><dd>${kindLabel(problem.kind)}</dd>
  <dt>Target</dt><dd><code class="wrap">${problem.target}</code></dd>
  <dt>Page</dt><dd><code class="wrap">${problem.page}</code>${others.length > 0 ? html`<div class="muted small">also seen on ${others.map((page, i) => html`${i > 0 ? ', ' : ''}<code class="wrap">${page}</code>`)}</div>` : ''}</dd>
  <dt>Narrative</dt><dd><p class="prose narrative">${problem.narrative}</p></dd>
  <dt>Environment</dt><dd>${problem.environment ? html`<code>${problem.environment}</code>` : html`<span class="muted">none</span>`}</dd>
  <dt>Users</dt><dd>${problem.users}</dd>
  <dt>Recordings</dt><dd>${problem.matched}</dd>
  <dt>Checks</dt><dd>${checksCell(problem)}</dd>
  <dt>Found</dt><dd>${when(problem.created_at)}</dd>
  <dt>Last activity</dt><dd>${when(problem.last_activity)}</dd>
  <dt>Issue</dt><dd><a href="/projects/${projectId}/issues/${problem.issue_id}">its friction issue</a></dd>
</dl>`
}

function publication(problem: KnownProblemDetail): SafeHtml {
  const rows = thresholds(problem)
  return html`<p class="publication">${publicationLabel(problem)}</p>
<p class="hint small">Published with at least ${PUBLISH_MIN_CONFIRMED} confirmed checks, ${PUBLISH_MIN_USERS} distinct users and at least ${Math.round(PUBLISH_MIN_SHARE * 100)}% of its conclusive checks (confirmed or refuted) confirmed; unpublished when that share falls below ${Math.round(UNPUBLISH_BELOW_SHARE * 100)}% after ${UNPUBLISH_MIN_CHECKS} checks.</p>
<ul class="thresholds">${rows.map((row) => html`<li data-threshold="${row.name}" class="${row.met ? 'ok' : 'bad'}">${row.met ? 'met' : 'missed'}: ${row.label}</li>`)}</ul>
${dueForUnpublishing(problem) ? html`<p class="notice">Its confirmed share is below ${Math.round(UNPUBLISH_BELOW_SHARE * 100)}% after ${UNPUBLISH_MIN_CHECKS} checks: the gate unpublishes it at its next pass.</p>` : ''}`
}

function sameFix(viewer: Viewer, projectId: string, problem: KnownProblemDetail): SafeHtml | '' {
  if (!problem.same_fix) return ''
  const other = problem.same_fix_ticket_id
    ? html`<a href="${knownProblemPath(projectId, problem.same_fix_ticket_id)}"><code class="wrap">${problem.same_fix_target ?? ''}</code></a>`
    : html`<span class="muted">another known problem (since removed)</span>`
  return html`<h2>Same fix?</h2>
<p class="same-fix" data-same-fix="${problem.same_fix}">Does one fix solve this and ${other}? ${SAME_FIX[problem.same_fix] ?? problem.same_fix}</p>
${problem.same_fix_ticket_id ? sameFixAnswer(viewer, projectId, problem) : ''}`
}

/** The owner's answer (or a change of it): a person who knows the code says whether one fix solves both. */
function sameFixAnswer(viewer: Viewer, projectId: string, problem: KnownProblemDetail): SafeHtml {
  const action = `${knownProblemPath(projectId, problem.id)}/same-fix`
  const button = (answer: 'same' | 'different', label: string): SafeHtml | '' =>
    problem.same_fix === answer ? '' : html`<form method="post" action="${action}" class="inline">${csrfField(viewer)}<input type="hidden" name="answer" value="${answer}"><button type="submit" class="secondary">${label}</button></form>`
  return html`<p class="same-fix-answer">${button('same', 'One fix solves both')} ${button('different', 'Each needs its own fix')}</p>`
}

function recordingsSection(projectId: string, problem: KnownProblemDetail, recordings: readonly MatchedRecording[]): SafeHtml {
  if (recordings.length === 0) return html`<p class="empty">No recording is matched to it any more (recordings are kept 30 days).</p>`
  return html`<p class="hint small">The recordings it was seen in, newest first${problem.matched > recordings.length ? ` (the latest ${recordings.length} of ${problem.matched})` : ''}; each replay opens at the moment of friction.</p>
<table class="matched"><thead><tr><th scope="col">User</th><th scope="col">When</th><th scope="col">Page</th><th scope="col">Replay</th></tr></thead><tbody>
${recordings.map(
  (match) => html`<tr><td>${userCell(match)}</td><td class="nowrap">${when(match.at)}</td><td>${match.page ? html`<code class="wrap">${match.page}</code>` : html`<span class="muted">unknown</span>`}</td>
<td>${match.recorded ? html`<a href="${replayPath(projectId, match.recording_id, match.at.getTime())}">Replay at the friction</a>` : html`<span class="muted">recording deleted</span>`}</td></tr>`,
)}
</tbody></table>`
}

function checksSection(projectId: string, problem: KnownProblemDetail, checks: readonly KnownProblemCheck[]): SafeHtml {
  if (checks.length === 0) return html`<p class="empty">No checks yet: a batch of further recordings of the same screens is checked once it has 3 matched recordings, then every 10 more.</p>`
  const total = problem.checks_confirmed + problem.checks_refuted + problem.checks_inconclusive
  return html`<p class="hint small">Further recordings of the same screens, checked for the same problem, newest first${total > checks.length ? ` (the latest ${checks.length} of ${total})` : checks.length === LISTED_EVIDENCE ? ` (the latest ${LISTED_EVIDENCE})` : ''}.</p>
<table class="checks"><thead><tr><th scope="col">Recording</th><th scope="col">Verdict</th><th scope="col">Day (UTC)</th></tr></thead><tbody>
${checks.map(
  (check) => html`<tr><td>${check.recorded ? html`<a href="${replayPath(projectId, check.recording_id)}">${userCell(check)}</a>` : html`<span class="muted">recording deleted</span>`}</td>
<td><span class="verdict ${check.verdict === 'confirmed' ? 'ok' : check.verdict === 'refuted' ? 'bad' : 'muted'}" data-verdict="${check.verdict}">${check.verdict}</span></td><td>${check.utc_day}</td></tr>`,
)}
</tbody></table>`
}
