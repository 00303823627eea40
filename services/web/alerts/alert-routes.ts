/**
 * The project's alerts page (docs/alerts.md): its three rules, each turned on or off with its
 * numbers, and its recent firings with their delivery's state. The rules are written through the
 * alerter's command and read through its read face; a refused form leaves the page in place with
 * each field's error and nothing saved.
 */
import type uWS from 'uWebSockets.js'
import { setAlertRule, type RuleError, type RuleInput } from '../../alerter/commands.js'
import { projectAlertRules, recentFirings } from '../../alerter/read.js'
import type { DashboardDeps } from '../http/deps.js'
import { redirect, sendPage } from '../http/respond.js'
import { getPage, postForm } from '../http/route.js'
import { alertsManager, alertsProject } from './access.js'
import { alertsPage, type Refused } from './views/alerts.js'

const alertsPath = (projectId: string): string => `/projects/${encodeURIComponent(projectId)}/alerts`

/** A number field as typed: a whole number, NaN for anything else (the command says what is wrong), undefined when absent. */
function numberField(form: URLSearchParams, name: string): number | undefined {
  const text = form.get(name)
  if (text === null) return undefined
  const trimmed = text.trim()
  return /^\d{1,9}$/.test(trimmed) ? Number(trimmed) : Number.NaN
}

/** Registers GET /projects/:id/alerts (?saved= names the rule saved) and its form's POST. */
export function registerAlertRoutes(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  const db = deps.setup.db
  const render = async (projectId: string, refused?: Refused, saved?: string) => ({
    rules: await projectAlertRules(db, projectId),
    firings: await recentFirings(db, projectId),
    ...(refused ? { refused } : {}),
    ...(saved ? { saved } : {}),
  })

  getPage(app, deps, '/projects/:id/alerts', async (ctx) => {
    const owned = await alertsProject(deps, ctx)
    if (!owned) return
    const saved = ctx.request.query.get('saved') ?? undefined
    sendPage(ctx.ex, 200, alertsPage(ctx.viewer, owned.project, await render(owned.project.id, undefined, saved)))
  })

  postForm(app, deps, '/projects/:id/alerts', async (ctx) => {
    const owned = await alertsManager(deps, ctx)
    if (!owned) return
    const kind = ctx.form.get('kind') ?? ''
    // An unticked checkbox sends nothing: its absence is "off".
    const input: RuleInput = { kind, enabled: ctx.form.get('enabled') === 'on' }
    if (kind === 'spike') Object.assign(input, { spikeEvents: numberField(ctx.form, 'spike_events'), spikeUsers: numberField(ctx.form, 'spike_users'), spikeMinutes: numberField(ctx.form, 'spike_minutes') })
    const errors: RuleError[] = await setAlertRule(db, owned.project.id, input)
    if (errors.length > 0) {
      const typed = { spike_events: ctx.form.get('spike_events') ?? '', spike_users: ctx.form.get('spike_users') ?? '', spike_minutes: ctx.form.get('spike_minutes') ?? '' }
      return sendPage(ctx.ex, 400, alertsPage(ctx.viewer, owned.project, await render(owned.project.id, { kind, errors, typed })))
    }
    deps.log.info('alert rule changed', { project_id: owned.project.id, user_id: owned.userId, kind, enabled: input.enabled })
    redirect(ctx.ex, `${alertsPath(owned.project.id)}?saved=${encodeURIComponent(kind)}`)
  })
}
