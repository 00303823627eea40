/**
 * The New project form (GET /projects/new) and the answer to it: the new project's three keys,
 * shown this once, with the snippets that use them (projects/snippets.ts).
 */
import { html, type SafeHtml } from '../../http/html.js'
import type { Viewer } from '../../http/viewer.js'
import { csrfField, layout } from '../../http/views/layout.js'
import { PROJECT_NAME_MAX, type CreatedProject } from '../create-project.js'
import type { ProjectSnippet } from '../snippets.js'

export interface NewProjectFormState {
  name: string
  repo: string
  error?: { field: 'name' | 'repo'; message: string }
}

/** The form; a refused post shows it again with what was typed and the problem beside its field. */
export function newProjectPage(viewer: Viewer, state: NewProjectFormState = { name: '', repo: '' }): SafeHtml {
  const { error } = state
  const described = (field: 'name' | 'repo'): SafeHtml | string => (error?.field === field ? html` aria-describedby="form-error" aria-invalid="true"` : '')
  return layout(
    viewer,
    'New project',
    html`<section class="panel narrow">
  <h1>New project</h1>
  <p>A project receives one app's errors. It gets three keys: an ingest key for the browser SDK, a source-map key for CI and an api key for a coding agent's tool server.</p>
  ${error ? html`<p class="error" role="alert" id="form-error">${error.message}</p>` : ''}
  <form method="post" action="/projects/new" class="stack">
    ${csrfField(viewer)}
    <label for="name">Name</label>
    <input id="name" name="name" type="text" required maxlength="${String(PROJECT_NAME_MAX)}" autocomplete="off" value="${state.name}"${described('name')}>
    <label for="repo">Repository <span class="muted">(optional)</span></label>
    <input id="repo" name="repo" type="text" maxlength="200" autocomplete="off" placeholder="owner/name" value="${state.repo}"${described('repo')}>
    <p class="hint">The repository fixes are proposed against, as owner/name on the code host. You can attach it later in the project's settings.</p>
    <button type="submit" class="primary" id="create-project">Create project</button>
  </form>
</section>`,
  )
}

/** Labels of the keys, in the order they are shown. */
const KEY_ROWS: ReadonlyArray<{ field: keyof CreatedProject['keys']; label: string; use: string }> = [
  { field: 'ingest_key', label: 'Ingest key', use: 'for the browser SDK; public by design' },
  { field: 'sourcemap_key', label: 'Source-map key', use: 'for CI uploading source maps; a secret' },
  { field: 'api_key', label: 'API key', use: "for a coding agent's tool server and the project API; a secret" },
]

/** The answer to the form: the keys this once, the snippets, and where the repository stands. */
export function projectCreatedPage(viewer: Viewer, created: CreatedProject, snippets: readonly ProjectSnippet[], repoNote: string): SafeHtml {
  return layout(
    viewer,
    'Project created',
    html`<section class="panel">
  <h1>Project ${created.name} created</h1>
  <p class="notice" role="status"><strong>Copy these keys now: they are shown this once.</strong> Only a hash of each is kept; a lost key is replaced under Settings &gt; API keys.</p>
  <dl class="facts new-keys">
    ${KEY_ROWS.map((row) => html`<dt>${row.label}</dt><dd><code class="wrap" id="${row.field.replace('_', '-')}">${created.keys[row.field]}</code> <span class="muted">${row.use}</span></dd>`)}
  </dl>
  ${repoNote ? html`<p class="hint" id="repo-note">${repoNote}</p>` : ''}
  ${snippets.map((snippet) => html`<h2>${snippet.title}</h2><p class="hint">${snippet.hint}</p><pre class="stack">${snippet.text}</pre>`)}
  <p class="actions"><a class="button primary" href="/projects/${created.projectId}" id="open-project">Open the project</a></p>
</section>`,
  )
}
