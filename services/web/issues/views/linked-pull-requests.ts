/**
 * The issue page's pull requests that coding agents opened themselves and linked over the tool
 * server (link_pull_request). The agent's word: shown apart from the service's own fix, with the
 * key that linked it; titles are the agent's text, escaped like everything else.
 */
import type { LinkedPullRequest } from '../../mcp/pull-requests.js'
import { html, safeHref, type SafeHtml } from '../../http/html.js'
import { when } from '../../http/views/layout.js'

/** The section, or nothing when no agent linked one. */
export function linkedPullRequestsSection(linked: readonly LinkedPullRequest[]): SafeHtml | '' {
  if (linked.length === 0) return ''
  return html`<h2>Pull requests linked by agents</h2>
<p class="hint small">Opened by a coding agent and recorded with the project's api key; the service did not build or verify them. One of the project's repository is followed: merged, it resolves the issue in the next release.</p>
<ul class="linked-pull-requests">${linked.map((pr) => {
    const href = safeHref(pr.url)
    const label = pr.title || pr.url
    return html`<li>${href ? html`<a href="${href}" rel="noreferrer">${label}</a>` : label} ${pr.pr_state === 'merged' || pr.pr_state === 'closed' ? html`<span class="badge ${pr.pr_state === 'merged' ? 'ready' : 'draft'}">${pr.pr_state}</span> ` : ''}<span class="muted small">linked ${when(pr.created_at)} with key <code>${pr.key_id}</code></span></li>`
  })}</ul>`
}
