/**
 * GET /api/v1/projects/:project_id/digests[?limit=N]: the project's latest daily digests (newest
 * first, 7 unless limit says otherwise, at most 50), each with its items and the text as
 * delivered. The session cookie of a project member, or the project's api key as a bearer
 * token, as the rest of the project API (caller.ts).
 */
import type uWS from 'uWebSockets.js'
import { exchange, send } from '../../../shared/http/exchange.js'
import { readQuery } from '../../../shared/http/request-text.js'
import { readLatestDigests } from '../../digester/read.js'
import { cookieName, parseCookies } from '../http/cookies.js'
import { projectCaller } from './caller.js'
import { ProjectApiError } from './errors.js'
import { answer, type ProjectApiDeps } from './routes.js'

/** Digests answered when the request names no limit: a week. */
const DEFAULT_LIMIT = 7

/** Registers the digests read. */
export function registerDigestApiRoutes(app: uWS.TemplatedApp, deps: ProjectApiDeps): void {
  app.get('/api/v1/projects/:project_id/digests', (res, req) => {
    const ex = exchange(res)
    const projectId = req.getParameter(0) ?? ''
    const credentials = { sessionToken: parseCookies(req.getHeader('cookie')).get(cookieName('session', deps.secureCookies)), authorization: req.getHeader('authorization') }
    const rawLimit = readQuery(req.getQuery()).get('limit')
    deps.track(
      answer(ex, deps.log, async () => {
        const caller = await projectCaller(deps, credentials, projectId)
        const limit = rawLimit === null ? DEFAULT_LIMIT : Number(rawLimit)
        if (!Number.isInteger(limit) || limit < 1 || limit > 50) throw new ProjectApiError('invalid_limit')
        const { rows } = await deps.db.query<{ timezone: string }>('SELECT timezone FROM projects WHERE id = $1', [caller.projectId])
        send(ex, 200, JSON.stringify({ timezone: rows[0]?.timezone ?? 'UTC', digests: await readLatestDigests(deps.db, caller.projectId, limit) }), [['Cache-Control', 'no-store']])
      }),
    )
  })
}
