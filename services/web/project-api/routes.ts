/**
 * The project API (/api/v1/projects/...): what the tool server to come reads about a project's
 * issues. For now a request is authenticated by the dashboard's session cookie and answers only the
 * project's owner, as the dashboard's pages do; API-key bearer auth comes with the tool server.
 */
import type uWS from 'uWebSockets.js'
import { isDatabaseOutage, type Db } from '../../../shared/db.js'
import { exchange, send, sendError, type Exchange } from '../../../shared/http/exchange.js'
import type { Logger } from '../../../shared/log.js'
import type { Orm } from '../../../shared/orm.js'
import { readInvestigation } from '../../investigator/read.js'
import { getWebSession } from '../accounts/web-sessions.js'
import { cookieName, parseCookies } from '../dashboard/cookies.js'
import { getIssueDetail, type IssueDetail } from '../dashboard/issue-queries.js'
import { getOwnProject } from '../dashboard/project-queries.js'
import { ProjectApiError } from './errors.js'

/** What the project API needs from the composition root. */
export interface ProjectApiDeps {
  db: Db
  /** The investigator's entities: an issue is answered with its latest investigation. */
  orm: Orm
  log: Logger
  /** Whether the session cookie carries the __Host- prefix (the dashboard is served over https). */
  secureCookies: boolean
  /** Counts a request in flight, so a graceful stop lets it answer. */
  track(work: Promise<void>): void
}

/** Answers carry one person's private data: no cache may keep them. */
const NO_STORE: ReadonlyArray<[string, string]> = [['Cache-Control', 'no-store']]

/** Seconds a client waits before retrying after an outage. */
const OUTAGE_RETRY_SECONDS = 5

/** The issue as the API answers it: snake_case fields, counts as numbers, times as ISO strings. */
export function issueJson(issue: IssueDetail): Record<string, unknown> {
  return {
    id: issue.id,
    title: issue.title,
    culprit: issue.culprit,
    status: issue.status,
    reason_code: issue.reason_code,
    reason_message: issue.reason_message,
    kind: issue.kind,
    first_seen: issue.first_seen.toISOString(),
    last_seen: issue.last_seen.toISOString(),
    // bigint in PostgreSQL, read as text: a count past 2^53 is not a concern for one issue.
    event_count: Number(issue.event_count),
    user_count: issue.user_count,
    session_count: issue.session_count,
  }
}

/** Registers GET /api/v1/projects/:project_id/issues/:issue_id and the surface's JSON 404. */
export function registerProjectApiRoutes(app: uWS.TemplatedApp, deps: ProjectApiDeps): void {
  const { db } = deps

  app.get('/api/v1/projects/:project_id/issues/:issue_id', (res, req) => {
    const ex = exchange(res)
    // uWS frees req at the first await: copy out what the answer needs.
    const projectId = req.getParameter(0) ?? ''
    const issueId = req.getParameter(1) ?? ''
    const token = parseCookies(req.getHeader('cookie')).get(cookieName('session', deps.secureCookies))
    deps.track(
      answer(ex, deps.log, async () => {
        const session = await getWebSession(db, token)
        if (!session) throw new ProjectApiError('not_signed_in')
        const project = await getOwnProject(db, session.user.id, projectId)
        if (!project) throw new ProjectApiError('project_not_found')
        const issue = await getIssueDetail(db, project.id, issueId)
        if (!issue) throw new ProjectApiError('issue_not_found')
        const investigation = await readInvestigation(deps.orm, issue.id)
        send(ex, 200, JSON.stringify({ issue: issueJson(issue), investigation: investigation ?? null }), NO_STORE)
      }),
    )
  })

  app.any('/api/v1/projects/*', (res) => sendError(exchange(res), new ProjectApiError('not_found')))
}

/** Runs a route, turning every failure into a catalogued answer; nothing escapes. */
async function answer(ex: Exchange, log: Logger, run: () => Promise<void>): Promise<void> {
  try {
    await run()
  } catch (error) {
    if (error instanceof ProjectApiError) return sendError(ex, error)
    const outage = isDatabaseOutage(error)
    if (!outage) log.error('project API route failed', { error })
    sendError(ex, outage ? new ProjectApiError('unavailable', { retryAfter: OUTAGE_RETRY_SECONDS }) : new ProjectApiError('internal_error'))
  }
}
