/**
 * GET /api/v1/projects/:project_id/digests[?limit=N]: the project's latest daily digests (newest
 * first, 7 unless limit says otherwise, at most 50), each with its items and the text as
 * delivered. Session cookie auth, as the rest of the project API.
 */
import type uWS from 'uWebSockets.js'
import { exchange, send } from '../../../shared/http/exchange.js'
import { readLatestDigests } from '../../digester/read.js'
import { getWebSession } from '../accounts/web-sessions.js'
import { cookieName, parseCookies } from '../dashboard/cookies.js'
import { getOwnProject, isUuid } from '../dashboard/project-queries.js'
import { ProjectApiError } from './errors.js'
import { answer, type ProjectApiDeps } from './routes.js'

/** Digests answered when the request names no limit: a week. */
const DEFAULT_LIMIT = 7

/** Registers the digests read. */
export function registerDigestApiRoutes(app: uWS.TemplatedApp, deps: ProjectApiDeps): void {
  app.get('/api/v1/projects/:project_id/digests', (res, req) => {
    const ex = exchange(res)
    const projectId = req.getParameter(0) ?? ''
    const token = parseCookies(req.getHeader('cookie')).get(cookieName('session', deps.secureCookies))
    const rawLimit = new URLSearchParams(req.getQuery() ?? '').get('limit')
    deps.track(
      answer(ex, deps.log, async () => {
        const session = await getWebSession(deps.db, token)
        if (!session) throw new ProjectApiError('not_signed_in')
        if (!isUuid(projectId)) throw new ProjectApiError('invalid_id', { field: 'project_id' })
        const limit = rawLimit === null ? DEFAULT_LIMIT : Number(rawLimit)
        if (!Number.isInteger(limit) || limit < 1 || limit > 50) throw new ProjectApiError('invalid_limit')
        const project = await getOwnProject(deps.db, session.user.id, projectId)
        if (!project) throw new ProjectApiError('project_not_found')
        send(ex, 200, JSON.stringify({ timezone: project.timezone, digests: await readLatestDigests(deps.db, project.id, limit) }), [['Cache-Control', 'no-store']])
      }),
    )
  })
}
