/** GET /projects/:id/alerts: the project's alert rules with their forms, then its recent firings. */
import { ALERT_KINDS, type AlertKind, type AlertRule, type FiringView } from '../../../alerter/read.js'
import type { RuleError } from '../../../alerter/commands.js'
import { html, type SafeHtml } from '../../http/html.js'
import type { ProjectFacts } from '../../projects/project-queries.js'
import type { Viewer } from '../../http/viewer.js'
import { csrfField, whenIn } from '../../http/views/layout.js'
import { projectFrame } from '../../http/views/project-frame.js'

/** A refused form: its rule, the errors, and the numbers as typed. */
export interface Refused {
  kind: string
  errors: RuleError[]
  typed: { spike_events: string; spike_users: string; spike_minutes: string }
}

export interface AlertsState {
  rules: AlertRule[]
  firings: FiringView[]
  refused?: Refused
  saved?: string
}

const NAMES: Readonly<Record<AlertKind, string>> = { new_issue: 'New issue', regression: 'Regression', spike: 'Spike' }
const WHAT: Readonly<Record<AlertKind, string>> = {
  new_issue: 'The first event of an issue never seen before.',
  regression: 'An event of a resolved issue brings it back.',
  spike: 'An issue gets more events, or more users, than the numbers below within the minutes below (0 leaves that number out).',
}
const DELIVERY: Readonly<Record<FiringView['delivery'], string>> = {
  none: 'not sent (no chat connected, or it was broken)',
  pending: 'on its way',
  sending: 'on its way',
  delivered: 'delivered to chat',
  failed: 'not delivered: the chat stayed unreachable',
  broken: 'not delivered: the chat refused the webhook',
}
/** The form's field of each number the command names. */
const FIELDS = { spikeEvents: 'spike_events', spikeUsers: 'spike_users', spikeMinutes: 'spike_minutes' } as const

function ruleForm(viewer: Viewer, project: ProjectFacts, rule: AlertRule, refused: Refused | undefined): SafeHtml {
  const mine = refused?.kind === rule.kind ? refused : undefined
  const errorOf = (field: string): RuleError | undefined => mine?.errors.find((error) => FIELDS[error.field as keyof typeof FIELDS] === field)
  const number = (field: 'spike_events' | 'spike_users' | 'spike_minutes', label: string, value: number) => {
    const error = errorOf(field)
    const id = `${field}-error`
    return html`<label for="${field}">${label}</label>
  <input id="${field}" name="${field}" type="text" inputmode="numeric" value="${mine ? mine.typed[field] : String(value)}"${error ? html` aria-invalid="true" aria-describedby="${id}"` : ''}>
  ${error ? html`<p class="error" role="alert" id="${id}">${error.message} Nothing was saved.</p>` : ''}`
  }
  return html`<section class="alert-rule">
<h2>${NAMES[rule.kind]}</h2>
<form method="post" action="/projects/${project.id}/alerts" class="stack">
  ${csrfField(viewer)}
  <input type="hidden" name="kind" value="${rule.kind}">
  <div class="choice"><input type="checkbox" id="enabled-${rule.kind}" name="enabled" value="on"${rule.enabled ? html` checked` : ''}>
    <label for="enabled-${rule.kind}">Alert on: ${WHAT[rule.kind]}</label></div>
  ${rule.kind === 'spike' ? html`${number('spike_events', 'More than this many events', rule.spikeEvents)}
  ${number('spike_users', 'Or more than this many users', rule.spikeUsers)}
  ${number('spike_minutes', 'Within minutes', rule.spikeMinutes)}` : ''}
  <button type="submit" class="primary">Save ${NAMES[rule.kind].toLowerCase()} rule</button>
</form>
</section>`
}

function firingsTable(project: ProjectFacts, firings: readonly FiringView[]): SafeHtml {
  if (firings.length === 0) return html`<p class="empty">No alert has fired yet.</p>`
  return html`<table><thead><tr><th scope="col">Fired</th><th scope="col">Issue</th><th scope="col">Rule</th><th scope="col">Delivery</th></tr></thead><tbody>
${firings.map((firing) => html`<tr><td>${whenIn(firing.firedAt, project.timezone)}</td><td><a href="/projects/${project.id}/issues/${firing.issueId}">${firing.title || '(no title)'}</a></td><td>${firing.what}</td><td>${DELIVERY[firing.delivery]}${firing.error && firing.delivery !== 'delivered' ? html` <span class="muted">${firing.error}</span>` : ''}</td></tr>`)}
</tbody></table>`
}

/** The page: what alerts do, a notice after a save, a form per rule, the recent firings. */
export function alertsPage(viewer: Viewer, project: ProjectFacts, state: AlertsState): SafeHtml {
  const saved = (ALERT_KINDS as readonly string[]).includes(state.saved ?? '') ? html`<p class="notice" role="status">The ${NAMES[state.saved as AlertKind].toLowerCase()} rule was saved.</p>` : ''
  return projectFrame(
    viewer,
    project,
    'alerts',
    'Alerts',
    html`<h1>Alerts</h1>
<p>Alerts are posted to the project's connected chat with a link to the issue: at most one per issue and rule an hour, and alerts that fire together come as one message. Noise and ignored issues never alert.</p>
${saved}
${state.rules.map((rule) => ruleForm(viewer, project, rule, state.refused))}
<h2>Recent alerts</h2>
${firingsTable(project, state.firings)}`,
  )
}
