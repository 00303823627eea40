/**
 * The issue list's filters form (a GET of the list itself, with the parameter names of
 * parseIssueFilter) and the bulk bar of the form around the list's rows: the buttons that resolve,
 * ignore, reopen or merge the ticked issues.
 */
import { ISSUE_SORTS, ISSUE_STATUSES } from '../../../grouper/read/issue-filter.js'
import { html, type SafeHtml } from '../../http/html.js'
import { IGNORE_CHOICES } from '../triage-form.js'

const TRIAGE_CHOICES: ReadonlyArray<[string, string]> = [
  ['open', 'Open'],
  ['resolved', 'Resolved'],
  ['ignored', 'Ignored'],
  ['all', 'All'],
]

const SORT_LABELS: Readonly<Record<(typeof ISSUE_SORTS)[number], string>> = { last_seen: 'Last seen', first_seen: 'First seen', events: 'Events', users: 'Users' }

function option(value: string, label: string, current: string): SafeHtml {
  return html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`
}

function textField(query: URLSearchParams, name: string, label: string, type = 'text'): SafeHtml {
  return html`<label class="filter"><span>${label}</span> <input type="${type}" name="${name}" value="${query.get(name) ?? ''}"></label>`
}

/** The filters form, filled with what the query asks (base: the list's path). */
/** The assignee choices of the filters form (a member's id works in the address too). */
const ASSIGNEE_CHOICES: ReadonlyArray<[string, string]> = [['', 'Anyone or nobody'], ['me', 'Assigned to me'], ['none', 'Unassigned']]

/** The filters form. */
export function filtersForm(base: string, query: URLSearchParams): SafeHtml {
  const status = query.get('status') ?? ''
  return html`<form method="get" action="${base}" class="issue-filters" role="search">
<p class="filters">
${textField(query, 'q', 'Search')}
<label class="filter"><span>Triage</span> <select name="triage">${TRIAGE_CHOICES.map(([value, label]) => option(value, label, query.get('triage') ?? 'open'))}</select></label>
<label class="filter"><span>Status</span> <select name="status">${option('', 'Any', status)}${ISSUE_STATUSES.map((value) => option(value, value, status))}</select></label>
${textField(query, 'release', 'Release')}
${textField(query, 'environment', 'Environment')}
${textField(query, 'user', 'User')}
<label class="filter"><span>Assigned</span> <select name="assignee">${ASSIGNEE_CHOICES.map(([value, label]) => option(value, label, query.get('assignee') ?? ''))}</select></label>
</p>
<p class="filters">
${textField(query, 'first_seen_from', 'First seen from', 'date')}
${textField(query, 'first_seen_to', 'to', 'date')}
${textField(query, 'last_seen_from', 'Last seen from', 'date')}
${textField(query, 'last_seen_to', 'to', 'date')}
<label class="filter"><span>Sort by</span> <select name="sort">${ISSUE_SORTS.map((value) => option(value, SORT_LABELS[value], query.get('sort') ?? 'last_seen'))}</select></label>
<label class="filter"><input type="checkbox" name="noise" value="1"${query.get('noise') === '1' ? html` checked` : ''}> <span>with noise</span></label>
<button type="submit" class="secondary">Filter</button> <a href="${base}">Clear</a>
</p>
</form>`
}

/** The bulk bar: what happens to the ticked rows (the form's other fields: csrf, back, the rows' issue boxes). */
export function bulkBar(): SafeHtml {
  return html`<div class="bulk-bar" role="group" aria-label="Change the selected issues">
<p><label for="bulk-reason">Reason <span class="hint small">(optional)</span></label> <input type="text" id="bulk-reason" name="reason" maxlength="1000"></p>
<p class="actions">
<button type="submit" name="action" value="resolve_now">Resolve</button>
<button type="submit" name="action" value="resolve_next_release" class="secondary">Resolve in next release</button>
<span class="ignore-choice"><label for="bulk-ignore">Ignore</label> <select id="bulk-ignore" name="ignore">${IGNORE_CHOICES.map((choice) => html`<option value="${choice.value}">${choice.label}</option>`)}</select>
<button type="submit" name="action" value="ignore" class="secondary">Ignore</button></span>
<button type="submit" name="action" value="reopen" class="secondary">Reopen</button>
<button type="submit" name="action" value="merge" class="secondary">Merge selected into the first</button>
</p>
</div>`
}
