/** The breadcrumbs that led to the latest event: what the page did, oldest first, the error last. */
import { html, type SafeHtml } from '../../http/html.js'
import { BREADCRUMBS_SHOWN, type ShownBreadcrumb } from '../../../grouper/read/stored-event.js'

/** The breadcrumb table, each crumb's time also given relative to the error (occurredAt). */
export function breadcrumbsSection(crumbs: readonly ShownBreadcrumb[], occurredAt: Date): SafeHtml {
  if (crumbs.length === 0) return html`<p class="empty">The event carries no breadcrumbs.</p>`
  return html`<p class="hint small">The last ${BREADCRUMBS_SHOWN} at most, oldest first; times in UTC, and before the error.</p>
<table class="breadcrumbs"><thead><tr><th scope="col">Time</th><th scope="col">Kind</th><th scope="col">Message</th><th scope="col">Data</th></tr></thead><tbody>
${crumbs.map(
  (crumb) => html`<tr><td class="nowrap">${crumbTime(crumb.at, occurredAt)}</td><td><span class="status">${crumb.kind || 'other'}</span></td><td><code class="wrap">${crumb.message}</code></td>
<td>${crumb.data.length > 0 ? html`<dl class="crumb-data">${crumb.data.map(([key, value]) => html`<dt>${key}</dt><dd><code>${value}</code></dd>`)}</dl>` : ''}</td></tr>`,
)}
</tbody></table>`
}

function crumbTime(at: Date | undefined, occurredAt: Date): SafeHtml {
  if (!at) return html`<span class="muted">unknown</span>`
  const iso = at.toISOString()
  const before = (occurredAt.getTime() - at.getTime()) / 1000
  // Client clocks drift: a crumb a little after the error's own timestamp is shown as it is.
  const relative = Number.isFinite(before) && before >= 0 && before < 24 * 60 * 60 ? html` <span class="muted small">−${before < 10 ? before.toFixed(1) : Math.round(before)} s</span>` : ''
  return html`<time datetime="${iso}">${iso.slice(11, 23)}</time>${relative}`
}
