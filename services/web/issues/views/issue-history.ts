/**
 * The issue page's history (docs/issues.md): every change a person, an agent or the service made
 * to the issue's triage and merges, newest first: who, when, from what to what, and why. Reasons,
 * labels and merged issues' titles are untrusted text: escaped, and a link is made only of a row id.
 */
import { isUuid } from '../../../../shared/domain/uuid.js'
import type { issueHistory } from '../../../grouper/read/triage.js'
import { html, type SafeHtml } from '../../http/html.js'
import { when } from '../../http/views/layout.js'

/** One line as the grouper's read face answers it. */
export type HistoryLine = Awaited<ReturnType<typeof issueHistory>>[number]

const ACTIONS: Readonly<Record<HistoryLine['action'], string>> = {
  resolve: 'Resolved',
  ignore: 'Ignored',
  reopen: 'Reopened',
  regress: 'Regressed',
  unignore: 'Ignore ended',
  merge: 'Merged issues here',
  merged: 'Merged into another issue',
  unmerge: 'Merge undone',
  unmerged: 'A merged issue taken back out',
  pull_request: 'Fix pull request',
  assign: 'Assigned',
  unassign: 'Unassigned',
}

/** Who made the change, as a cell. */
function actor(line: HistoryLine): SafeHtml {
  if (line.actorKind === 'service') return html`the service <span class="muted small">(${line.actorLabel || line.actorId})</span>`
  if (line.actorKind === 'agent') return html`<span class="actor agent">${line.actorLabel || `agent ${line.actorId}`}</span>`
  return html`<span class="actor person">${line.actorLabel || 'a person'}</span>`
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)
const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined)

/** A link to an issue named in a line's detail; its title as text, its id only when it is one. */
function issueRef(issuesBase: string, id: unknown, title: unknown): SafeHtml {
  const label = text(title) ?? text(id) ?? 'an issue'
  return typeof id === 'string' && isUuid(id) ? html`<a href="${`${issuesBase}/${id}`}">${label}</a>` : html`${label}`
}

/** What the line's detail adds: the resolve mode, the ignore's end, the issues merged. */
function detail(line: HistoryLine, issuesBase: string): SafeHtml {
  const d = line.detail ?? {}
  switch (line.action) {
    case 'resolve':
      return d.mode === 'next_release' ? html`in the next release${text(d.release) ? html` (after <code>${text(d.release)}</code>)` : ''}` : html`now`
    case 'ignore': {
      const parts: string[] = []
      if (text(d.until)) parts.push(`until ${text(d.until)!.slice(0, 16).replace('T', ' ')} UTC`)
      if (count(d.more_events) !== undefined) parts.push(`until ${count(d.more_events)} more events`)
      if (count(d.more_users) !== undefined) parts.push(`until ${count(d.more_users)} more users`)
      return html`${parts.length === 0 ? 'for good' : parts.join(' or ')}`
    }
    case 'regress':
      return text(d.release) ? html`in release <code>${text(d.release)}</code>` : html``
    case 'merge': {
      const sources = Array.isArray(d.sources) ? (d.sources as Array<Record<string, unknown>>).filter((s) => typeof s === 'object' && s !== null) : []
      return html`${sources.map((s, i) => html`${i > 0 ? ', ' : ''}${issueRef(issuesBase, s.id, s.title)}`)}`
    }
    case 'merged':
      return html`into ${issueRef(issuesBase, d.into, d.title)}`
    case 'unmerge':
      return html`from ${issueRef(issuesBase, d.from, undefined)}`
    case 'unmerged':
      return issueRef(issuesBase, d.source, undefined)
    case 'assign':
      return html`to <span class="assignee">${text(d.to_label) ?? 'a member'}</span>${text(d.from_label) ? html` (was ${text(d.from_label)})` : ''}`
    case 'unassign':
      return text(d.from_label) ? html`(was <span class="assignee">${text(d.from_label)}</span>)` : html``
    default:
      return html``
  }
}

/** The history table, or a line saying nothing happened yet. */
export function historySection(lines: readonly HistoryLine[], issuesBase: string): SafeHtml {
  const body =
    lines.length === 0
      ? html`<p class="empty">No triage yet: resolving, ignoring, reopening and merging are recorded here with who did it and why.</p>`
      : html`<table class="history"><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">From → to</th><th scope="col">Why</th></tr></thead><tbody>
${lines.map(
  (line) => html`<tr class="history-line" data-action="${line.action}"><td class="nowrap">${when(line.at)}</td><td>${actor(line)}</td><td>${ACTIONS[line.action] ?? line.action} ${detail(line, issuesBase)}</td>
<td>${line.fromState || line.toState ? `${line.fromState || '—'} → ${line.toState || '—'}` : ''}</td><td>${line.reason ? html`<span class="wrap">${line.reason}</span>` : html`<span class="muted">—</span>`}</td></tr>`,
)}
</tbody></table>`
  return html`<section class="issue-history" aria-labelledby="history-heading"><h2 id="history-heading">History</h2>${body}</section>`
}
