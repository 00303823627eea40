/**
 * Settings > API keys (GET /projects/:id/settings/api-keys): the project's keys by id, kind, label
 * and state, a form that creates a key of each kind (its value shown once, on the answer to the
 * form), and a revoke button per active key. Only the project's owner sees it.
 */
import { html, type SafeHtml } from '../../http/html.js'
import type { KeySummary, ProjectFacts } from '../../projects/project-queries.js'
import type { Viewer } from '../../http/viewer.js'
import { csrfField, when } from '../../http/views/layout.js'
import { projectFrame } from '../../http/views/project-frame.js'

/** What each kind is for (spec "Keys"). */
const KINDS: ReadonlyArray<{ kind: string; label: string; use: string }> = [
  { kind: 'api', label: 'API key (svc_ak_)', use: 'for coding agents: the tool server at /mcp and the project API, as Authorization: Bearer; keep it in SVC_API_KEY, never in code' },
  { kind: 'sourcemap', label: 'Source-map key (svc_sk_)', use: 'for CI: svc-sourcemaps reads it from SVC_SOURCEMAP_KEY' },
  { kind: 'ingest', label: 'Ingest key (svc_pk_)', use: 'for the browser SDK: public, can only send events and recordings' },
]

export interface ApiKeysState {
  /** The key just created, shown this once. */
  created?: { id: string; kind: string; token: string; dsn?: string }
  /** The project's DSN for Sentry's SDKs with the ingest key left as a placeholder (projects/dsn.ts). */
  dsnShape?: string
  /** A notice after a revocation or a refused form. */
  notice?: string
  error?: string
}

/** The page. */
export function apiKeysPage(viewer: Viewer, project: ProjectFacts, keys: readonly KeySummary[], state: ApiKeysState = {}): SafeHtml {
  const base = `/projects/${project.id}/settings/api-keys`
  const created = state.created
  return projectFrame(
    viewer,
    project,
    'settings',
    'API keys',
    html`<p class="crumbs"><a href="/projects/${project.id}/settings/codehost">Settings</a> / <span>API keys</span></p>
<h1>API keys</h1>
${state.notice ? html`<p class="notice" role="status">${state.notice}</p>` : ''}
${state.error ? html`<p class="error" role="alert">${state.error}</p>` : ''}
${
  created
    ? html`<div class="notice new-key" role="status"><p>Your new key <code>${created.id}</code> is below. <strong>Copy it now: it is shown this once</strong> and only a hash of it is kept.</p>
<pre class="key-value" id="new-key">${created.token}</pre>
${created.dsn ? html`<p>Its DSN for an app on Sentry's SDK (@sentry/browser, @sentry/react, @sentry/vue):</p><pre class="key-value" id="new-dsn">${created.dsn}</pre>` : ''}</div>`
    : ''
}
<ul class="hint">${KINDS.map((k) => html`<li><strong>${k.label}</strong>: ${k.use}.</li>`)}</ul>
${state.dsnShape ? html`<p class="hint" id="dsn-shape">Coming from Sentry? An app on Sentry's SDK sends here with the DSN <code>${state.dsnShape}</code>, the ingest key in place of <code>INGEST_KEY</code>; an ingest key created here is shown with its whole DSN.</p>` : ''}
<h2>Create a key</h2>
<form method="post" action="${base}" class="stack">
  ${csrfField(viewer)}
  <label for="kind">Kind</label>
  <select id="kind" name="kind">${KINDS.map((k) => html`<option value="${k.kind}">${k.label}</option>`)}</select>
  <label for="label">Label</label>
  <input id="label" name="label" type="text" maxlength="100" placeholder="e.g. claude-code on my laptop" autocomplete="off">
  <button type="submit" class="primary">Create key</button>
</form>
<h2>Keys</h2>
<p class="hint">Revoking a key stops it at once, everywhere; anything still using it gets 401.</p>
${
  keys.length === 0
    ? html`<p class="empty">No keys.</p>`
    : html`<table class="keys"><thead><tr><th scope="col">Key id</th><th scope="col">Kind</th><th scope="col">Label</th><th scope="col">Created</th><th scope="col">State</th></tr></thead><tbody>
${keys.map(
  (key) => html`<tr><td><code>${key.id}</code></td><td>${key.kind}</td><td>${key.label}</td><td>${when(key.created_at)}</td><td>${
    key.revoked_at
      ? html`revoked ${when(key.revoked_at)}`
      : html`active <form method="post" action="${base}/${key.id}/revoke" class="inline">${csrfField(viewer)}<button type="submit" class="secondary">Revoke</button></form>`
  }</td></tr>`,
)}
</tbody></table>`
}`,
  )
}
