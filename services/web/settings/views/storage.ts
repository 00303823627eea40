/**
 * The settings page's data sections: the data-limits form (owners) and the storage panel, which
 * members also see on their own page (GET /projects/:id/settings/storage).
 */
import { html, type SafeHtml } from '../../http/html.js'
import type { ProjectFacts } from '../../projects/project-queries.js'
import type { Viewer } from '../../http/viewer.js'
import { csrfField, when } from '../../http/views/layout.js'
import { projectFrame } from '../../http/views/project-frame.js'
import { problemMessage, type DataDefaults, type DataLimits, type DataLimitsProblem } from '../data-limits.js'
import { STORAGE_FRESH_MS, type StorageFigures } from '../storage-figures.js'

/** The data-limits form's state: what is stored, the defaults, and a refused post's text and problems. */
export interface DataLimitsState {
  limits: DataLimits
  defaults: DataDefaults
  refused?: { problems: readonly DataLimitsProblem[]; typed: Record<DataLimitsProblem['field'], string> }
}

const count = (n: number): string => n.toLocaleString('en-US')

/** Bytes as people read them (binary units, one decimal). */
export function readableBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]}`
}

const capText = (cap: number): string => (cap === 0 ? 'no cap' : `${count(cap)} events a minute`)

function fieldError(refused: DataLimitsState['refused'], field: DataLimitsProblem['field']): SafeHtml | '' {
  const problem = refused?.problems.find((p) => p.field === field)
  return problem ? html`<p class="error" role="alert" id="${field}-error" data-code="${problem.code}">${problemMessage(problem)} Nothing was saved.</p>` : ''
}

/** The owner's form: keep events for N days, the intake cap; blank shows and means the default. */
export function dataLimitsSection(viewer: Viewer, project: ProjectFacts, state: DataLimitsState): SafeHtml {
  const { limits, defaults, refused } = state
  const value = (field: DataLimitsProblem['field'], stored: number | null): string => (refused ? refused.typed[field] : stored === null ? '' : String(stored))
  const described = (field: DataLimitsProblem['field']): string => `${refused?.problems.some((p) => p.field === field) ? `${field}-error ` : ''}${field}-hint`
  return html`<h2>Data limits</h2>
<form method="post" action="/projects/${project.id}/settings/data" class="stack">
  ${csrfField(viewer)}
  <label for="retention_days">Keep events for N days</label>
  ${fieldError(refused, 'retention_days')}
  <input id="retention_days" name="retention_days" type="text" inputmode="numeric" value="${value('retention_days', limits.retentionDays)}" maxlength="12" placeholder="${String(defaults.retentionDays)}" autocomplete="off" aria-describedby="${described('retention_days')}">
  <p class="hint" id="retention_days-hint">1 to 3650 days; blank keeps the service's default, now ${count(defaults.retentionDays)} days${limits.retentionDays === null ? ' (in use)' : ''}. Older events are removed by the retention pass.</p>
  <label for="events_per_minute">Intake cap, events a minute</label>
  ${fieldError(refused, 'events_per_minute')}
  <input id="events_per_minute" name="events_per_minute" type="text" inputmode="numeric" value="${value('events_per_minute', limits.eventsPerMinute)}" maxlength="12" placeholder="${String(defaults.projectEventsPerMinute)}" autocomplete="off" aria-describedby="${described('events_per_minute')}">
  <p class="hint" id="events_per_minute-hint">0 is no project cap (each key's own limit still holds); blank keeps the service's default, now ${capText(defaults.projectEventsPerMinute)}${limits.eventsPerMinute === null ? ' (in use)' : ''}. Events past the cap are refused with 429.</p>
  <button type="submit" class="primary">Save data limits</button>
</form>`
}

/** The storage panel: what the project keeps and what intake turned away, with how fresh each figure is. */
export function storagePanel(figures: StorageFigures): SafeHtml {
  const { events, recordings, intake } = figures
  const minutes = Math.round(STORAGE_FRESH_MS / 60_000)
  return html`<h2 id="storage">Storage</h2>
<dl class="facts storage">
  <dt>Events stored</dt><dd data-figure="events">${events.capped ? `more than ${count(events.events)}` : count(events.events)}</dd>
  <dt>Oldest event</dt><dd data-figure="oldest">${events.oldestAt ? when(events.oldestAt) : html`<span class="muted">none stored</span>`}</dd>
  <dt>Recordings</dt><dd data-figure="recordings">${readableBytes(recordings.bytes)} in ${count(recordings.recordings)} recording${recordings.recordings === 1 ? '' : 's'}</dd>
  <dt>Refused at intake, last 24 hours</dt><dd data-figure="refused">${count(intake.refused)}</dd>
  <dt>Sampled (counted, not stored whole), last 24 hours</dt><dd data-figure="sampled">${count(intake.sampled)}</dd>
</dl>
<p class="hint">Events and recordings counted ${when(figures.countedAt)}, at most ${minutes} minute${minutes === 1 ? '' : 's'} before this page was made${
    events.capped ? html`; counting stops at ${count(events.events)} events so the page stays fast` : ''
  }. Refused and sampled: as of this page, summed by the hour.</p>`
}

/** GET /projects/:id/settings/storage: the storage panel for every member. */
export function storagePage(viewer: Viewer, project: ProjectFacts, figures: StorageFigures): SafeHtml {
  return projectFrame(viewer, project, 'settings', 'Storage', html`<h1>Storage</h1>
${storagePanel(figures)}`)
}
