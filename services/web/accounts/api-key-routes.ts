/**
 * Settings > API keys: the page, the create form (answered with the page showing the new key once:
 * never a redirect, so the value is in no address or history entry) and each key's revoke button.
 * Only the project's owner sees the page or may post; anybody else gets 403 on a post.
 */
import { readDsnNumber, sentryDsn } from '../projects/dsn.js'
import type uWS from 'uWebSockets.js'
import { createProjectKey, MAX_ACTIVE_KEYS, revokeProjectKey } from './api-keys.js'
import type { DashboardDeps } from '../http/deps.js'
import { requireOwner } from '../projects/own-project.js'
import { getOwnProject, listProjectKeys, type ProjectFacts } from '../projects/project-queries.js'
import { PageError, redirect, sendPage } from '../http/respond.js'
import { getPage, postForm, type FormContext } from '../http/route.js'
import { signInPath } from '../http/viewer.js'
import { apiKeysPage } from './views/api-keys.js'

const keysPath = (projectId: string): string => `/projects/${encodeURIComponent(projectId)}/settings/api-keys`
const FORBIDDEN = (): PageError => new PageError(403, 'Not allowed', "Only the project's owner can manage its keys. Sign in as the owner, or ask them to.")
const KEY_ID = /^[a-z0-9]{12}$/

/** The project a form posts to, for its owner; undefined after sending a signed-out browser to sign in. */
async function ownerOfForm(deps: DashboardDeps, ctx: FormContext): Promise<ProjectFacts | undefined> {
  const projectId = ctx.request.params[0]!
  if (!ctx.viewer.session) {
    redirect(ctx.ex, signInPath(keysPath(projectId)))
    return undefined
  }
  const project = await getOwnProject(deps.setup.db, ctx.viewer.session.user.id, projectId)
  if (!project) throw FORBIDDEN()
  return project
}

/** Registers GET and POST /projects/:id/settings/api-keys and POST …/:key_id/revoke. */
export function registerApiKeyRoutes(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  const db = deps.setup.db

  getPage(app, deps, '/projects/:id/settings/api-keys', async (ctx) => {
    const owned = await requireOwner(deps, ctx, 'manage its keys')
    if (!owned) return
    const revoked = ctx.request.query.get('revoked')
    const notice = revoked && KEY_ID.test(revoked) ? `Key ${revoked} is revoked: it no longer works anywhere.` : undefined
    const number = await readDsnNumber(db, owned.project.id)
    const dsnShape = number === undefined ? undefined : sentryDsn(deps.baseUrl, 'INGEST_KEY', number)
    sendPage(ctx.ex, 200, apiKeysPage(ctx.viewer, owned.project, await listProjectKeys(db, owned.project.id), { notice, dsnShape }))
  })

  postForm(app, deps, '/projects/:id/settings/api-keys', async (ctx) => {
    const project = await ownerOfForm(deps, ctx)
    if (!project) return
    const outcome = await createProjectKey(db, project.id, ctx.form.get('kind') ?? '', ctx.form.get('label') ?? '')
    const keys = async (): Promise<Awaited<ReturnType<typeof listProjectKeys>>> => listProjectKeys(db, project.id)
    if (outcome.kind === 'invalid_kind') return sendPage(ctx.ex, 400, apiKeysPage(ctx.viewer, project, await keys(), { error: 'Pick a kind of key from the list (API, source-map or ingest) and create it again.' }))
    if (outcome.kind === 'too_many') return sendPage(ctx.ex, 409, apiKeysPage(ctx.viewer, project, await keys(), { error: `The project has ${MAX_ACTIVE_KEYS} active keys. Revoke keys you no longer use, then create one again.` }))
    deps.log.info('key created', { project_id: project.id, user_id: ctx.viewer.session?.user.id, key_id: outcome.id, kind: ctx.form.get('kind') })
    const kind = ctx.form.get('kind') ?? ''
    const number = await readDsnNumber(db, project.id)
    const dsn = (key: string): string | undefined => (number === undefined ? undefined : sentryDsn(deps.baseUrl, key, number))
    sendPage(ctx.ex, 200, apiKeysPage(ctx.viewer, project, await keys(), { created: { id: outcome.id, kind, token: outcome.token, dsn: kind === 'ingest' ? dsn(outcome.token) : undefined }, dsnShape: dsn('INGEST_KEY') }))
  })

  postForm(app, deps, '/projects/:id/settings/api-keys/:key_id/revoke', async (ctx) => {
    const project = await ownerOfForm(deps, ctx)
    if (!project) return
    const keyId = ctx.request.params[1]!
    const revoked = KEY_ID.test(keyId) && (await revokeProjectKey({ db, redis: deps.setup.redis, keys: deps.setup.keys, log: deps.log, auth: deps.auth }, project.id, keyId))
    if (!revoked) throw new PageError(404, 'No such key', 'This project has no active key with this id (it may be revoked already). Go back to the key list and reload it.')
    deps.log.info('key revoked', { project_id: project.id, user_id: ctx.viewer.session?.user.id, key_id: keyId })
    redirect(ctx.ex, `${keysPath(project.id)}?revoked=${keyId}`)
  })
}
