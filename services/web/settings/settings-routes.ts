/**
 * The project settings page and its forms: the repository (checked with the code host when
 * there is one), the limited-draft opt-in and the daily digest's time zone; the page also lists
 * the project's environments, the data limits and the storage panel. Only the project's owner sees
 * the page or may post; every member sees the storage panel on its own page.
 */
import type uWS from 'uWebSockets.js'
import { listEnvironments } from '../../grouper/read/environments.js'
import type { DashboardDeps } from '../http/deps.js'
import { ownProject, requireOwner } from '../projects/own-project.js'
import { getOwnProject, type ProjectFacts } from '../projects/project-queries.js'
import { SAVED_OUTCOMES, setLimitedDrafts, setRepository, type SettingsDeps } from './project-settings.js'
import { PageError, redirect, sendPage } from '../http/respond.js'
import { getPage, postForm, type FormContext } from '../http/route.js'
import { setTimezone } from './timezone-setting.js'
import { signInPath } from '../http/viewer.js'
import { settingsPage, SHOWN_ENVIRONMENTS, type RepoProblem, type SettingsState } from './views/settings.js'
import { dataConfig } from '../../../shared/config/data.js'
import { getDataLimits, parseDataLimits, setDataLimits } from './data-limits.js'
import { getStorageFigures } from './storage-figures.js'
import { storagePage, type DataLimitsState } from './views/storage.js'

const settingsPath = (projectId: string): string => `/projects/${encodeURIComponent(projectId)}/settings/codehost`

/**
 * The project a settings form posts to, for its owner; undefined after sending a signed-out browser
 * to sign in. Like every dashboard action it answers anybody else 403, also for an id that does not
 * exist, so the answer tells nothing about other people's projects.
 */
async function ownerOfForm(deps: DashboardDeps, ctx: FormContext): Promise<{ userId: string; project: ProjectFacts } | undefined> {
  const { ex, request, viewer } = ctx
  const projectId = request.params[0]!
  if (!viewer.session) {
    redirect(ex, signInPath(settingsPath(projectId)))
    return undefined
  }
  const project = await getOwnProject(deps.setup.db, viewer.session.user.id, projectId)
  if (!project) throw new PageError(403, 'Not allowed', "Only the project's owner can change its settings. Sign in as the owner, or ask them to change it.")
  return { userId: viewer.session.user.id, project }
}

/** The same status an agent's attach answers for the same refusal (services/web/setup/errors.ts). */
function problemStatus(problem: RepoProblem): number {
  if (problem.kind === 'unreachable') return 503
  if (problem.kind === 'refused' && (problem.access.status === 'installation_gone' || problem.access.status === 'suspended')) return 409
  return 400
}

/** Registers GET /projects/:id/settings/codehost (?saved= names the notice) and its forms' POSTs. */
export function registerSettingsRoutes(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  const db = deps.setup.db
  const settings: SettingsDeps = { db, redis: deps.setup.redis, keys: deps.setup.keys, codehost: deps.codehost }
  // Without the composition root's: what an unset environment gives (SVC_RETENTION_DAYS, SVC_PROJECT_EVENTS_PER_MINUTE).
  const defaults = deps.dataDefaults ?? dataConfig({})
  const storageDeps = { db, redis: deps.setup.redis, keys: deps.setup.keys }
  const pageState = async (projectId: string, refused?: DataLimitsState['refused']): Promise<SettingsState> => ({
    checked: deps.codehost !== undefined,
    installUrl: deps.codehost?.installUrl() || undefined,
    environments: await listEnvironments(db, projectId, SHOWN_ENVIRONMENTS),
    data: { limits: await getDataLimits(db, projectId), defaults, ...(refused ? { refused } : {}) },
    storage: await getStorageFigures(storageDeps, projectId),
  })

  getPage(app, deps, '/projects/:id/settings/codehost', async (ctx) => {
    const owned = await requireOwner(deps, ctx, 'change its settings')
    if (!owned) return
    const asked = ctx.request.query.get('saved')
    const saved = SAVED_OUTCOMES.find((outcome) => outcome === asked)
    sendPage(ctx.ex, 200, settingsPage(ctx.viewer, owned.project, { ...(await pageState(owned.project.id)), saved }))
  })

  postForm(app, deps, '/projects/:id/settings/codehost', async (ctx) => {
    const owned = await ownerOfForm(deps, ctx)
    if (!owned) return
    const { userId, project } = owned
    const text = ctx.form.get('codehost_repo') ?? ''
    const outcome = await setRepository(settings, userId, project, text)
    const fields = { project_id: project.id, user_id: userId, setting: 'codehost_repo', outcome: outcome.kind }
    if (outcome.kind === 'invalid_name' || outcome.kind === 'refused' || outcome.kind === 'unreachable') {
      if (outcome.kind !== 'invalid_name') deps.log.info('project setting refused', { ...fields, codehost_repo: text.trim(), access: outcome.kind === 'refused' ? outcome.access.status : undefined })
      // A refusal may still have updated what is known about the installation, as an agent's attach does.
      const now = (await getOwnProject(db, userId, project.id)) ?? project
      return sendPage(ctx.ex, problemStatus(outcome), settingsPage(ctx.viewer, now, { ...(await pageState(project.id)), refused: { text, problem: outcome } }))
    }
    if (outcome.kind !== 'unchanged') deps.log.info('project setting changed', { ...fields, codehost_repo: text.trim() })
    redirect(ctx.ex, `${settingsPath(project.id)}?saved=${outcome.kind}`)
  })

  postForm(app, deps, '/projects/:id/settings/fixes', async (ctx) => {
    const owned = await ownerOfForm(deps, ctx)
    if (!owned) return
    const { userId, project } = owned
    // An unticked checkbox sends nothing: its absence is "off".
    const on = ctx.form.get('limited_drafts') === 'on'
    if (!(await setLimitedDrafts(db, userId, project.id, on))) throw new PageError(403, 'Not allowed', "Only the project's owner can change its settings. Sign in as the owner, or ask them to change it.")
    if (on !== project.fix_limited_drafts) deps.log.info('project setting changed', { project_id: project.id, user_id: userId, setting: 'fix_limited_drafts', value: on })
    redirect(ctx.ex, `${settingsPath(project.id)}?saved=limited_drafts`)
  })

  postForm(app, deps, '/projects/:id/settings/timezone', async (ctx) => {
    const owned = await ownerOfForm(deps, ctx)
    if (!owned) return
    const outcome = await setTimezone(db, owned.userId, owned.project.id, ctx.form.get('timezone') ?? '')
    if (outcome.kind === 'unknown_zone') return sendPage(ctx.ex, 400, settingsPage(ctx.viewer, owned.project, { ...(await pageState(owned.project.id)), timezoneRefused: outcome.text }))
    if (outcome.kind === 'saved') deps.log.info('project setting changed', { project_id: owned.project.id, user_id: owned.userId, setting: 'timezone', value: outcome.zone })
    redirect(ctx.ex, `${settingsPath(owned.project.id)}?saved=timezone`)
  })

  postForm(app, deps, '/projects/:id/settings/data', async (ctx) => {
    const owned = await ownerOfForm(deps, ctx)
    if (!owned) return
    const parsed = parseDataLimits(ctx.form.get('retention_days') ?? '', ctx.form.get('events_per_minute') ?? '')
    if (!parsed.ok) return sendPage(ctx.ex, 400, settingsPage(ctx.viewer, owned.project, await pageState(owned.project.id, parsed)))
    if (!(await setDataLimits(db, owned.userId, owned.project.id, parsed.limits))) throw new PageError(403, 'Not allowed', "Only the project's owner can change its settings. Sign in as the owner, or ask them to change it.")
    deps.log.info('project setting changed', { project_id: owned.project.id, user_id: owned.userId, setting: 'data_limits', retention_days: parsed.limits.retentionDays, events_per_minute: parsed.limits.eventsPerMinute })
    redirect(ctx.ex, `${settingsPath(owned.project.id)}?saved=data_limits`)
  })

  // The storage panel alone, for every member (the settings page around it is the owners').
  getPage(app, deps, '/projects/:id/settings/storage', async (ctx) => {
    const member = await ownProject(deps, ctx)
    if (!member) return
    sendPage(ctx.ex, 200, storagePage(ctx.viewer, member.project, await getStorageFigures(storageDeps, member.project.id)))
  })
}
