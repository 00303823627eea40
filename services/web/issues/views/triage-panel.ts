/**
 * The issue page's triage panel (docs/issues.md): where the team's triage stands (resolved how,
 * ignored until what, the latest regression, the merges) and the owner's forms: resolve now or in
 * the next release, ignore (for good, for a while, until more events or users), reopen, merge into
 * another issue, undo a merge; and who the issue is assigned to. Titles of merged issues are event text: escaped like all of it.
 */
import type { IssueTriage } from '../../../grouper/read/triage.js'
import { html, type SafeHtml } from '../../http/html.js'
import type { Viewer } from '../../http/viewer.js'
import { csrfField, when } from '../../http/views/layout.js'
import { IGNORE_CHOICES } from '../triage-form.js'

/** What the panel shows and where its forms post. */
export interface TriagePanel {
  triage: IssueTriage
  /** The issue page: its forms post to <base>/triage, /merge and /unmerge. */
  base: string
  /** The project's issue pages start here (links to merged issues). */
  issuesBase: string
  eventCount: number
  userCount: number
  /** Who the issue is assigned to, and the project's members to pick from (<base>/assign). */
  assignee: { id: string; label: string } | null
  members: ReadonlyArray<{ id: string; label: string }>
}

const LABELS: Readonly<Record<IssueTriage['triage'], string>> = { open: 'Open', resolved: 'Resolved', ignored: 'Ignored' }

/** The triage state in a few words, as the list shows it beside the pipeline's status. */
export function triageBadge(triage: string, regressedAt: Date | null): SafeHtml {
  const label = LABELS[triage as IssueTriage['triage']] ?? triage
  return html`<span class="badge triage ${triage}">${label}</span>${regressedAt ? html` <span class="badge regressed" title="${`regressed ${regressedAt.toISOString()}`}">regressed</span>` : ''}`
}

/** The regression mark: in which release and when. */
export function regressionMark(triage: Pick<IssueTriage, 'regressedAt' | 'regressedRelease'>): SafeHtml {
  if (!triage.regressedAt) return html``
  return triage.regressedRelease ? html`Regressed in release <code>${triage.regressedRelease}</code>, ${when(triage.regressedAt)}` : html`Regressed in an event without a release, ${when(triage.regressedAt)}`
}

/** Where the triage stands, as one sentence. */
function stateLine(panel: TriagePanel): SafeHtml {
  const { triage } = panel
  if (triage.triage === 'resolved') {
    if (triage.resolvedMode === 'next_release') {
      return triage.resolvedRelease
        ? html`Resolved in the next release (after <code>${triage.resolvedRelease}</code>), ${when(triage.resolvedAt)}.`
        : html`Resolved in the next release (no release was seen yet), ${when(triage.resolvedAt)}.`
    }
    return html`Resolved ${when(triage.resolvedAt)}: an event received after that reopens it.`
  }
  if (triage.triage === 'ignored') {
    const until: SafeHtml[] = []
    if (triage.ignoredUntil) until.push(html`until ${when(triage.ignoredUntil)}`)
    if (triage.ignoredUntilEvents !== null) until.push(html`until it has ${triage.ignoredUntilEvents} events (${panel.eventCount} now)`)
    if (triage.ignoredUntilUsers !== null) until.push(html`until ${triage.ignoredUntilUsers} users ran into it (${panel.userCount} now)`)
    if (until.length === 0) return html`Ignored for good.`
    return html`Ignored ${until.map((part, i) => html`${i > 0 ? ' or ' : ''}${part}`)}.`
  }
  return html`Open.`
}

function issueLink(panel: TriagePanel, issue: { id: string; title: string }): SafeHtml {
  return html`<a href="${`${panel.issuesBase}/${issue.id}`}">${issue.title || issue.id}</a>`
}

/** The panel; the forms only when viewer is signed in (only the owner reaches the page). */
export function triageSection(viewer: Viewer, panel: TriagePanel): SafeHtml {
  const { triage } = panel
  const regression = regressionMark(triage)
  const facts = html`<p class="triage-state"><span class="badge triage ${triage.triage}">${LABELS[triage.triage]}</span> ${stateLine(panel)}</p>
${triage.regressedAt ? html`<p class="triage-regression">${regression}.</p>` : ''}
${triage.mergedInto ? html`<p class="triage-merged-into">Merged into ${issueLink(panel, triage.mergedInto)}: its new events land there.</p>` : ''}
${triage.mergedFrom.length > 0 ? html`<p class="triage-merged-from">Merged here: ${triage.mergedFrom.map((issue, i) => html`${i > 0 ? ', ' : ''}${issueLink(panel, issue)}`)}.</p>` : ''}`
  if (!viewer.session) return html`<section class="triage" aria-labelledby="triage-heading"><h2 id="triage-heading">Triage</h2>${facts}</section>`
  const forms = html`${assignForm(viewer, panel)}${triage.mergedInto ? unmergeForm(viewer, panel) : html`${triageForm(viewer, panel)}${mergeForm(viewer, panel)}`}`
  return html`<section class="triage" aria-labelledby="triage-heading"><h2 id="triage-heading">Triage</h2>
${facts}
${forms}
</section>`
}

const reasonField = (id: string): SafeHtml => html`<label for="${id}">Reason <span class="hint small">(optional, kept in the history)</span></label> <input type="text" id="${id}" name="reason" maxlength="1000">`

function triageForm(viewer: Viewer, panel: TriagePanel): SafeHtml {
  const state = panel.triage.triage
  return html`<form method="post" action="${`${panel.base}/triage`}" class="triage-form">${csrfField(viewer)}
<p>${reasonField('triage-reason')}</p>
<p class="actions">
${state !== 'resolved' ? html`<button type="submit" name="action" value="resolve_now">Resolve now</button>
<button type="submit" name="action" value="resolve_next_release" class="secondary">Resolve in the next release</button>` : ''}
${state !== 'open' ? html`<button type="submit" name="action" value="reopen" class="secondary">Reopen</button>` : ''}
<span class="ignore-choice"><label for="triage-ignore">Ignore</label> <select id="triage-ignore" name="ignore">${IGNORE_CHOICES.map((choice) => html`<option value="${choice.value}">${choice.label}</option>`)}</select>
<button type="submit" name="action" value="ignore" class="secondary">Ignore</button></span>
</p>
</form>`
}

/** Who the issue is assigned to, and a select of the members to assign it to (or nobody). */
function assignForm(viewer: Viewer, panel: TriagePanel): SafeHtml {
  const current = panel.assignee?.id ?? ''
  const choices: ReadonlyArray<{ id: string; label: string }> = [{ id: '', label: 'Nobody' }, ...panel.members]
  return html`<form method="post" action="${`${panel.base}/assign`}" class="assign-form">${csrfField(viewer)}
<p><label for="assignee">Assigned to</label> <select id="assignee" name="assignee">${choices.map((m) => html`<option value="${m.id}"${m.id === current ? html` selected` : ''}>${m.label}</option>`)}</select>
<button type="submit" class="secondary">Assign</button>${panel.assignee ? html` <span class="assignee-now">now: ${panel.assignee.label}</span>` : ''}</p>
</form>`
}

function mergeForm(viewer: Viewer, panel: TriagePanel): SafeHtml {
  return html`<form method="post" action="${`${panel.base}/merge`}" class="merge-form">${csrfField(viewer)}
<p><label for="merge-into">Merge into</label> <input type="text" id="merge-into" name="into" required placeholder="the issue's id or the address of its page" size="50">
<span class="hint small">The same bug under another issue of this project: this one's events move there, and its new events follow.</span></p>
<p>${reasonField('merge-reason')} <button type="submit" class="secondary">Merge into that issue</button></p>
</form>`
}

function unmergeForm(viewer: Viewer, panel: TriagePanel): SafeHtml {
  return html`<form method="post" action="${`${panel.base}/unmerge`}" class="unmerge-form">${csrfField(viewer)}
<p>${reasonField('unmerge-reason')} <button type="submit" class="secondary">Undo merge</button>
<span class="hint small">Its events, and those it brought since, move back here.</span></p>
</form>`
}
