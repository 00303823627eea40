/**
 * How a known problem reads on the dashboard: its state and kind in plain words, whether it is
 * published, and the address of its page. Shared by the list (known-problems.ts) and its page
 * (known-problem-page.ts).
 */
import { isPublished, type TicketCounts } from '../../../matcher/read/gate.js'
import { html, type SafeHtml } from '../../http/html.js'
import { when } from '../../http/views/layout.js'

/** tickets.state in plain words. */
const STATES: Readonly<Record<string, string>> = {
  candidate: 'gathering evidence',
  queued: 'waiting for an investigation',
  analyzing: 'being investigated',
  awaiting_approval: 'waiting for approval',
  insight: 'cause found outside the code',
  needs_human: 'needs a person',
  investigated: 'cause found in the code',
  fixing: 'fix being built',
  pr_draft: 'draft pull request open',
  pr_created: 'pull request open',
  archived: 'archived',
}

/** tickets.kind in plain words. */
export const KIND_WORDS: Readonly<Record<string, string>> = {
  rage_click: 'rage click',
  dead_click: 'dead click',
  error_after_click: 'error after click',
  form_abandon: 'form abandonment',
}

/** The state as people say it, the stored name kept in a data attribute for scripts and tests. */
export function stateLabel(state: string): SafeHtml {
  return html`<span class="status" data-state="${state}">${STATES[state] ?? state}</span>`
}

/** The kind as people say it. */
export function kindLabel(kind: string): string {
  return KIND_WORDS[kind] ?? kind
}

/** "published since …", "unpublished since …" or "not published". */
export function publicationLabel(problem: Pick<TicketCounts, 'published_at' | 'unpublished_at'>): SafeHtml {
  if (isPublished(problem)) return html`<span class="ok">published</span> <span class="muted small">since ${when(problem.published_at)}</span>`
  if (problem.unpublished_at) return html`<span class="muted">unpublished</span> <span class="muted small">since ${when(problem.unpublished_at)}</span>`
  return html`<span class="muted">not published</span>`
}

/** The known problem's page. */
export function knownProblemPath(projectId: string, ticketId: string): string {
  return `/projects/${projectId}/known-problems/${ticketId}`
}
