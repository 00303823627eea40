/**
 * The project settings page (GET /projects/:id/settings/codehost): the repository with its form
 * and the app's install link, the limited-draft opt-in, the digest's time zone, the data limits and
 * the storage panel, and the project's environments with the UUIDs the operator commands take. Only the project's owner sees it.
 */
import type { EnvironmentRow } from '../../../grouper/read/environments.js'
import { html, safeHref, type SafeHtml } from '../../http/html.js'
import type { RepoOutcome, SavedOutcome } from '../project-settings.js'
import type { ProjectFacts } from '../../projects/project-queries.js'
import type { Viewer } from '../../http/viewer.js'
import { csrfField, when } from '../../http/views/layout.js'
import { projectFrame, yesNo } from '../../http/views/project-frame.js'
import { timezoneSection } from './timezone-setting.js'
import { dataLimitsSection, storagePanel, type DataLimitsState } from './storage.js'
import type { StorageFigures } from '../storage-figures.js'

/** An answer to the repository form that leaves the page in place with an error. */
export type RepoProblem = Extract<RepoOutcome, { kind: 'invalid_name' | 'refused' | 'unreachable' }>

export interface SettingsState {
  /** A code host plugin is configured, so a new repository is checked before it is stored. */
  checked: boolean
  /** The code host app's install page; undefined without an app. */
  installUrl: string | undefined
  /** The notice after a saved form (?saved=). */
  saved?: SavedOutcome
  /** The repository form's text and why it was not saved. */
  refused?: { text: string; problem: RepoProblem }
  /** The time-zone form's text, when it named no known zone. */
  timezoneRefused?: string
  /** The project's environments by name (at most SHOWN_ENVIRONMENTS of them) and how many it has. */
  environments: { environments: readonly EnvironmentRow[]; total: number }
  /** The data-limits form: stored limits, the defaults, and a refused post. */
  data: DataLimitsState
  /** The storage panel's figures. */
  storage: StorageFigures
}

/** Environments the page lists; past them it sends the reader to svc environments, which lists every one. */
export const SHOWN_ENVIRONMENTS = 100

const ACCESS: Readonly<Record<string, string>> = {
  visible_private: 'the app can see it (private repository)',
  visible_public: 'the app can see it (public repository)',
  not_in_installation: 'the app is installed on the owner, but not on the repository',
  installation_gone: 'the app installation was removed',
}

const VALID = 'Enter owner/repo as the code host shows it, for example octocat/hello-world: the owner is 1 to 39 letters, digits or single hyphens (not first or last), the repository 1 to 100 letters, digits, dots, hyphens or underscores (not . or ..). Leave the field empty to detach the repository.'
const KEPT = 'The repository was not changed.'

function link(url: string | undefined, label: string): SafeHtml | string {
  const href = url ? safeHref(url) : undefined
  return href ? html` <a href="${href}" rel="noreferrer">${label}</a>.` : ''
}

/** What to tell the person about a repository that was not saved, in words and with the link that fixes it. */
function problemText(state: SettingsState, text: string, problem: RepoProblem): SafeHtml {
  const repo = text.trim()
  const owner = repo.split('/')[0] ?? repo
  if (problem.kind === 'invalid_name') return html`“${repo}” is not a repository name. ${VALID} Nothing was saved.`
  if (problem.kind === 'unreachable') return html`The code host could not be reached, so ${repo} could not be checked and nothing was saved. Try again in a minute.`
  const access = problem.access
  switch (access.status) {
    case 'not_installed':
      return html`The code host app is not installed on ${owner}. Install it there, then save again. ${KEPT}${link(access.installUrl, 'Install the code host app')}`
    case 'not_in_installation':
      return html`The code host app is installed on ${owner}, but not on ${repo}. Add the repository to the installation, then save again. ${KEPT}${link(access.addRepoUrl, 'Add the repository')}`
    case 'installation_gone':
      return html`The code host app installation this project used was removed. Install the app again, then save again. ${KEPT}${link(state.installUrl, 'Install the code host app')}`
    case 'suspended':
      return html`The code host app installation on ${owner} is suspended. Unsuspend it in the code host's settings, then save again. ${KEPT}`
    case 'invalid':
      return html`The code host cannot attach ${repo}: ${access.message} ${KEPT}`
  }
}

function savedText(project: ProjectFacts, saved: SavedOutcome): SafeHtml {
  switch (saved) {
    case 'unchanged':
      return html`Nothing changed: that is the repository already saved.`
    case 'detached':
      return html`The repository was detached. Investigations and fixes need one: attach it again here.`
    case 'unchecked':
      return html`Saved ${project.codehost_repo} without checking it: this deployment has no code host configured, so the service cannot tell whether it can reach the repository.`
    case 'attached':
      return html`Attached ${project.codehost_repo}: the code host app can see it.`
    case 'limited_drafts':
      return html`Limited drafts are ${project.fix_limited_drafts ? 'on' : 'off'}.`
    case 'timezone':
      return html`The daily digest comes around 09:00 ${project.timezone}.`
    case 'data_limits':
      return html`The data limits were saved.`
  }
}

function repositorySection(viewer: Viewer, project: ProjectFacts, state: SettingsState): SafeHtml {
  const refused = state.refused
  const value = refused ? refused.text : project.codehost_repo
  const install = state.installUrl ? safeHref(state.installUrl) : undefined
  return html`<h2>Code host</h2>
<dl class="facts">
  <dt>Repository</dt><dd>${project.codehost_repo ? html`<code>${project.codehost_repo}</code>` : html`<span class="muted">none attached</span>`}</dd>
  <dt>Attached</dt><dd>${yesNo(project.codehost_connected_at, 'yes', 'no')}</dd>
  <dt>App access</dt><dd>${project.codehost_repo_access ? (ACCESS[project.codehost_repo_access] ?? project.codehost_repo_access) : html`<span class="muted">not checked</span>`}</dd>
</dl>
${refused ? html`<p class="error" role="alert" id="repo-error">${problemText(state, refused.text, refused.problem)}</p>` : ''}
<form method="post" action="/projects/${project.id}/settings/codehost" class="stack">
  ${csrfField(viewer)}
  <label for="codehost_repo">Repository</label>
  <input id="codehost_repo" name="codehost_repo" type="text" value="${value}" maxlength="200" placeholder="owner/repo" autocomplete="off" spellcheck="false" aria-describedby="${refused ? 'repo-error ' : ''}repo-hint">
  <p class="hint" id="repo-hint">owner/repo as the code host shows it, for example octocat/hello-world; empty detaches the repository. ${
    state.checked ? 'A new repository is saved only once the code host confirms the app can see it.' : 'This deployment has no code host configured, so the repository is saved without a check.'
  }</p>
  <button type="submit" class="primary">Save repository</button>
</form>
${
  install
    ? html`<p>Install the code host app on the repository's owner so the service can read the code and open pull requests.</p>
<p class="actions"><a class="button secondary" href="${install}" rel="noreferrer">Install the code host app</a></p>`
    : html`<p class="empty">This deployment has no code host app configured, so there is nothing to install.</p>`
}`
}

function fixesSection(viewer: Viewer, project: ProjectFacts): SafeHtml {
  return html`<h2>Fixes</h2>
<form method="post" action="/projects/${project.id}/settings/fixes" class="stack">
  ${csrfField(viewer)}
  <div class="choice"><input type="checkbox" id="limited_drafts" name="limited_drafts" value="on"${project.fix_limited_drafts ? html` checked` : ''} aria-describedby="limited-drafts-hint">
    <label for="limited_drafts">Allow limited drafts</label></div>
  <p class="hint" id="limited-drafts-hint">A fix without a test that reproduces the error may open as a draft pull request, marked “not verified”, when the build passes, no existing test breaks and an independent review approves it.</p>
  <button type="submit" class="primary">Save</button>
</form>`
}

function environmentsSection(project: ProjectFacts, list: SettingsState['environments']): SafeHtml {
  const more = list.total - list.environments.length
  return html`<h2>Environments</h2>
<p class="hint">Each is made when the first event or recording naming it is stored. Its UUID is what <code>svc backfill-tickets</code> and <code>svc reset-friction-tickets</code> take as <code>--environment</code>; <code>svc environments --project ${project.id}</code> lists them with their recordings and known problems.</p>
${
  list.environments.length === 0
    ? html`<p class="empty">No environment yet.</p>`
    : html`<table class="keys environments"><thead><tr><th scope="col">Name</th><th scope="col">UUID</th><th scope="col">First named</th></tr></thead><tbody>
${list.environments.map((environment) => html`<tr><td>${environment.name}</td><td><code>${environment.id}</code></td><td>${when(environment.created_at)}</td></tr>`)}
</tbody></table>`
}
${more > 0 ? html`<p class="hint">${more} more, not listed here: <code>svc environments --project ${project.id}</code> lists every one.</p>` : ''}`
}

/** GET /projects/:id/settings/codehost, also answered again by a repository form that was not saved. */
export function settingsPage(viewer: Viewer, project: ProjectFacts, state: SettingsState): SafeHtml {
  return projectFrame(
    viewer,
    project,
    'settings',
    'Settings',
    html`<h1>Settings</h1>
<p class="settings-links"><a href="/projects/${project.id}/settings/api-keys">API keys</a>: create and revoke the project's keys.</p>
${state.saved ? html`<p class="notice" role="status">${savedText(project, state.saved)}</p>` : ''}
${repositorySection(viewer, project, state)}
${fixesSection(viewer, project)}
${timezoneSection(viewer, project, state.timezoneRefused)}
${dataLimitsSection(viewer, project, state.data)}
${storagePanel(state.storage)}
${environmentsSection(project, state.environments)}`,
  )
}
