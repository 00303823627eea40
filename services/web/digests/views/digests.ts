/** GET /projects/:id/digests: the latest daily digests, each as delivered, with its items' facts and check. */
import { DIGEST_TIME, type DigestView } from '../../../digester/read.js'
import type { ProjectSetup } from '../../setup/project-facts.js'
import { html, type SafeHtml } from '../../http/html.js'
import type { ProjectFacts } from '../../projects/project-queries.js'
import type { Viewer } from '../../http/viewer.js'
import { whenIn } from '../../http/views/layout.js'
import { projectFrame } from '../../http/views/project-frame.js'

/** Each state in words. */
const STATES: Readonly<Record<string, string>> = {
  queued: 'on its way',
  running: 'on its way',
  delivered: 'delivered to chat',
  kept: 'kept here (no chat connected)',
  empty: 'nothing to report: no message sent',
  undelivered: 'not delivered',
}

const OUTCOMES: Readonly<Record<string, string>> = {
  cause_found: 'cause found in your code',
  outside_code: 'cause outside your code',
  fix_draft: 'draft pull request',
  fix_ready: 'ready for review',
}

function digestSection(digest: DigestView, zone: string): SafeHtml {
  const state = STATES[digest.state] ?? digest.state
  const undelivered = digest.state === 'undelivered' ? html` <span class="bad">${digest.error}</span>` : ''
  const items =
    digest.items.length === 0
      ? ''
      : html`<table><thead><tr><th scope="col">#</th><th scope="col">Title</th><th scope="col">Outcome</th><th scope="col">Users</th><th scope="col">Pull request</th><th scope="col">Text</th></tr></thead><tbody>
${digest.items.map(
  (item) => html`<tr><td>${item.position}</td><td><a href="${item.links[0]?.url ?? '#'}">${item.title}</a>${item.kind === 'known_problem' ? html` <span class="badge draft">known problem</span>` : ''}</td><td>${OUTCOMES[item.outcome] ?? item.outcome}</td><td>${item.users}</td><td>${item.pull_request_url ? html`<a href="${item.pull_request_url}">${item.pull_request_url}</a>` : html`<span class="muted">none</span>`}</td><td>${item.check_result === 'written' ? 'as written' : item.check_result === 'mechanical' ? html`<span title="${item.check_reason}">plain line (the check: ${item.check_reason})</span>` : html`<span class="muted">not checked yet</span>`}</td></tr>`,
)}
</tbody></table>`
  return html`<section class="digest">
<h2>${digest.local_date} <span class="muted">${digest.timezone}</span></h2>
<p>${state}${digest.delivered_at ? html` <span class="muted">${whenIn(new Date(digest.delivered_at), zone)}</span>` : ''}${undelivered}</p>
${digest.text === null ? '' : html`<pre class="digest-text">${digest.text}</pre>`}
${items}
</section>`
}

/** The page: when digests come, the chat as the setup facts say (readProjectFacts), then the latest first. */
export function digestsPage(viewer: Viewer, project: ProjectFacts, setup: ProjectSetup, digests: readonly DigestView[]): SafeHtml {
  const chat = setup.times.chat_broken_at
    ? html`<p class="bad">The chat has refused the digest's webhook since ${whenIn(setup.times.chat_broken_at, project.timezone)}: ${setup.facts.chat_error} Connect chat again with a new webhook.</p>`
    : setup.facts.chat_connected
      ? html`<p class="hint">Each digest is posted to the connected chat.</p>`
      : html`<p class="hint">No chat is connected: digests are kept here and for the tool server.</p>`
  return projectFrame(
    viewer,
    project,
    'digests',
    'Digests',
    html`<h1>Daily digests</h1>
<p>A digest comes every day around ${DIGEST_TIME} ${project.timezone} (change the time zone in Settings) with the issues and known problems whose investigation or fix completed since the last one. Days with nothing to report send nothing.</p>
${chat}
${digests.length === 0 ? html`<p class="empty">No digest yet.</p>` : digests.map((digest) => digestSection(digest, project.timezone))}`,
  )
}
