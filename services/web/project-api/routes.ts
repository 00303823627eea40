/**
 * The project API (/api/v1/projects/...): a project's issues as JSON, and the one action ("Fix
 * this"). A request is authenticated by the dashboard's session cookie (a project member, as the
 * dashboard's pages) or by the project's api key as a bearer token (caller.ts); a fix an api key
 * asks for is an agent's, delivered as a draft.
 */
import type { Redis } from 'ioredis'
import type uWS from 'uWebSockets.js'
import { isDatabaseOutage, type Db } from '../../../shared/db/index.js'
import { exchange, send, sendError, type Exchange } from '../../../shared/http/exchange.js'
import type { Logger } from '../../../shared/log.js'
import type { KeyAuthenticator } from '../../../shared/key-auth.js'
import type { Orm } from '../../../shared/db/orm.js'
import type { StreamKeys } from '../../../shared/redis.js'
import { requestFix } from '../../investigator/commands.js'
import { readFix } from '../../investigator/read/fix.js'
import { readInvestigation, readNotInvestigated } from '../../investigator/read/investigation.js'
import { getIssueDetail, type IssueDetail } from '../../grouper/read/issues.js'
import { assigneeJson } from '../issues/assignment.js'
import { isUuid } from '../../../shared/domain/uuid.js'
import { isSameOriginPost } from '../http/viewer.js'
import { projectCaller, type Caller } from './caller.js'
import { ProjectApiError } from './errors.js'
import { readApiRequest, type ApiRequest } from './request.js'
import { registerIssueListApiRoute } from './issue-list-routes.js'
import { registerIssueActionRoutes, triageJson } from './issue-action-routes.js'
import { issueTriage } from '../../grouper/read/triage.js'

/** What the project API needs from the composition root. */
export interface ProjectApiDeps {
  db: Db
  /** The investigator's entities: an issue is answered with its latest investigation and fix. */
  orm: Orm
  /** Where "Fix this" puts the fix or investigation it starts. */
  redis: Redis
  keys: StreamKeys
  /** config.investigations.leaseMs, as the dashboard's buttons use it. */
  investigationLeaseMs: number
  log: Logger
  /** Whether the session cookie carries the __Host- prefix (the dashboard is served over https). */
  secureCookies: boolean
  /** The service's address and DASHBOARD_ORIGIN: the origins an action may come from in a browser. */
  baseUrl: string
  dashboardOrigin: string | undefined
  /** The process's key authenticator: an api key is accepted as a bearer token beside the cookie. */
  auth: KeyAuthenticator
  /** Counts a request in flight, so a graceful stop lets it answer. */
  track(work: Promise<void>): void
}

/** Answers carry one person's private data: no cache may keep them. */
const NO_STORE: ReadonlyArray<[string, string]> = [['Cache-Control', 'no-store']]

/** Seconds a client waits before retrying after an outage. */
const OUTAGE_RETRY_SECONDS = 5

const ISSUE_PATH = '/api/v1/projects/:project_id/issues/:issue_id'

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
    noise: issue.noise,
    first_seen: issue.first_seen.toISOString(),
    last_seen: issue.last_seen.toISOString(),
    created_at: issue.created_at.toISOString(),
    // bigint in PostgreSQL, read as text: a count past 2^53 is not a concern for one issue.
    event_count: Number(issue.event_count),
    user_count: issue.user_count,
    session_count: issue.session_count,
    assignee: assigneeJson(issue),
  }
}

/**
 * Registers GET /api/v1/projects/:project_id/issues (issue-list-routes.ts), …/issues/:issue_id,
 * POST …/fix and the surface's JSON 404.
 */
export function registerProjectApiRoutes(app: uWS.TemplatedApp, deps: ProjectApiDeps): void {
  registerIssueListApiRoute(app, deps, answer)
  app.get(ISSUE_PATH, (res, req) => {
    const ex = exchange(res)
    const request = readApiRequest(req, deps.secureCookies)
    deps.track(
      answer(ex, deps.log, async () => {
        const { caller, issue } = await ownIssue(deps, request)
        const [investigation, fix, note, triage] = await Promise.all([readInvestigation(deps.orm, issue.id), readFix(deps.orm, issue.id), readNotInvestigated(deps.orm, issue), issueTriage(deps.db, caller.projectId, issue.id)])
        const notInvestigated = note ? { code: note.code, message: note.message, decided_at: note.decidedAt } : null
        const body = { issue: issueJson(issue), triage: triage ? triageJson(triage) : null, not_investigated: notInvestigated, investigation: investigation ?? null, fix: fix ?? null }
        send(ex, 200, JSON.stringify(body), NO_STORE)
      }),
    )
  })

  app.post(`${ISSUE_PATH}/fix`, (res, req) => {
    const ex = exchange(res)
    const request = readApiRequest(req, deps.secureCookies)
    // The action takes no body: whatever is sent is read and dropped.
    res.onData(() => {})
    deps.track(
      answer(ex, deps.log, async () => {
        // The session cookie goes along with any post a browser makes, so one from another site's page is
        // refused; a bearer key is never sent by a browser on its own.
        if (!request.authorization && !isSameOriginPost(deps, request)) throw new ProjectApiError('cross_site_request')
        const { caller, issue } = await ownIssue(deps, request)
        if (issue.kind !== 'error') throw new ProjectApiError('not_an_error')
        if (issue.noise !== '') throw new ProjectApiError('noise_issue')
        const result = await requestFix(deps.orm, deps.redis, deps.keys, { issueId: issue.id, projectId: caller.projectId, leaseMs: deps.investigationLeaseMs, ...caller.requester })
        deps.log.info('fix requested', { project_id: caller.projectId, issue_id: issue.id, user_id: caller.requester.userId, trigger: caller.requester.trigger, result, via: 'project_api' })
        if (result === 'in_flight') throw new ProjectApiError('in_flight')
        send(ex, 202, JSON.stringify({ result }), NO_STORE)
      }),
    )
  })

  registerIssueActionRoutes(app, deps, answer)

  app.any('/api/v1/projects/*', (res) => sendError(exchange(res), new ProjectApiError('not_found')))
}

/**
 * The caller's project and the issue the request names. Ids are checked for form after the
 * credential (a malformed one is the client's mistake, not a probe); another person's project, a
 * project other than the key's, and an issue of another project are all "not found".
 */
async function ownIssue(deps: ProjectApiDeps, request: ApiRequest): Promise<{ caller: Caller; issue: IssueDetail }> {
  const caller = await projectCaller(deps, { sessionToken: request.token, authorization: request.authorization }, request.projectId)
  if (!isUuid(request.issueId)) throw new ProjectApiError('invalid_id', { field: 'issue_id' })
  const issue = await getIssueDetail(deps.db, caller.projectId, request.issueId)
  if (!issue) throw new ProjectApiError('issue_not_found')
  return { caller, issue }
}

/** Runs a route, turning every failure into a catalogued answer; nothing escapes. */
export async function answer(ex: Exchange, log: Logger, run: () => Promise<void>): Promise<void> {
  try {
    await run()
  } catch (error) {
    if (error instanceof ProjectApiError) return sendError(ex, error)
    const outage = isDatabaseOutage(error)
    if (!outage) log.error('project API route failed', { error })
    sendError(ex, outage ? new ProjectApiError('unavailable', { retryAfter: OUTAGE_RETRY_SECONDS }) : new ProjectApiError('internal_error'))
  }
}
