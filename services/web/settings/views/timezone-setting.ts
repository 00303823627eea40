/** The settings page's time-zone form: when the daily digest comes. */
import { html, type SafeHtml } from '../../http/html.js'
import type { ProjectFacts } from '../../projects/project-queries.js'
import type { Viewer } from '../../http/viewer.js'
import { csrfField } from '../../http/views/layout.js'

/** The section; refused is the text of a zone that was not saved. */
export function timezoneSection(viewer: Viewer, project: ProjectFacts, refused: string | undefined): SafeHtml {
  return html`<h2>Daily digest</h2>
${refused !== undefined ? html`<p class="error" role="alert" id="timezone-error">“${refused}” is not a time zone this service knows. Enter an IANA time zone name such as Europe/Berlin, America/New_York or UTC. Nothing was saved.</p>` : ''}
<form method="post" action="/projects/${project.id}/settings/timezone" class="stack">
  ${csrfField(viewer)}
  <label for="timezone">Time zone</label>
  <input id="timezone" name="timezone" type="text" value="${refused ?? project.timezone}" maxlength="64" placeholder="Europe/Berlin" autocomplete="off" spellcheck="false" aria-describedby="${refused !== undefined ? 'timezone-error ' : ''}timezone-hint">
  <p class="hint" id="timezone-hint">The digest is posted around 09:00 in this time zone (an IANA name such as Europe/Berlin), daylight saving included. <a href="/projects/${project.id}/digests">Latest digests</a>.</p>
  <button type="submit" class="primary">Save time zone</button>
</form>`
}
