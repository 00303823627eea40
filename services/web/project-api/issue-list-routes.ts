/**
 * GET /api/v1/projects/:project_id/issues: the project's issues as JSON, filtered, sorted and a
 * page at a time (docs/issues.md, "Search and filters"; the parameters are parseIssueFilter's).
 * The session cookie of a project member, or the project's api key as a bearer token, as the
 * rest of the project API (caller.ts).
 */
import type uWS from 'uWebSockets.js'
import type { Db } from '../../../shared/db/index.js'
import { exchange, send, type Exchange } from '../../../shared/http/exchange.js'
import type { KeyAuthenticator } from '../../../shared/key-auth.js'
import type { Logger } from '../../../shared/log.js'
import { readQuery } from '../../../shared/http/request-text.js'
import { parseIssueFilter, resolveAssigneeMe } from '../../grouper/read/issue-filter.js'
import { assigneeJson } from '../issues/assignment.js'
import { searchIssues, type IssueRow } from '../../grouper/read/issue-list.js'
import { cookieName, parseCookies } from '../http/cookies.js'
import { projectCaller } from './caller.js'
import { ProjectApiError } from './errors.js'

/** What the list needs (a part of ProjectApiDeps; routes.ts passes its own, so no import goes back to it). */
export interface IssueListDeps {
  db: Db
  log: Logger
  auth: KeyAuthenticator
  secureCookies: boolean
  track(work: Promise<void>): void
}

/** routes.ts's answer: runs a route and turns every failure into a catalogued answer. */
type Answer = (ex: Exchange, log: Logger, run: () => Promise<void>) => Promise<void>

/** An issue of the list: snake_case fields, counts as numbers, times as ISO strings. */
export function issueListJson(issue: IssueRow): Record<string, unknown> {
  return {
    id: issue.id,
    title: issue.title,
    culprit: issue.culprit,
    kind: issue.kind,
    status: issue.status,
    reason_code: issue.reason_code,
    triage: issue.triage,
    resolved_mode: issue.resolved_mode || null,
    ignored_until: issue.ignored_until?.toISOString() ?? null,
    regressed_at: issue.regressed_at?.toISOString() ?? null,
    noise: issue.noise,
    first_seen: issue.first_seen.toISOString(),
    last_seen: issue.last_seen.toISOString(),
    created_at: issue.created_at.toISOString(),
    // bigint in PostgreSQL, read as text: a count past 2^53 is not a concern for one issue.
    event_count: Number(issue.event_count),
    user_count: issue.user_count,
    session_count: issue.session_count,
    merged_count: issue.merged_count,
    assignee: assigneeJson(issue),
  }
}

/** Registers the issue list. */
export function registerIssueListApiRoute(app: uWS.TemplatedApp, deps: IssueListDeps, answer: Answer): void {
  app.get('/api/v1/projects/:project_id/issues', (res, req) => {
    const ex = exchange(res)
    const projectId = req.getParameter(0) ?? ''
    const credentials = { sessionToken: parseCookies(req.getHeader('cookie')).get(cookieName('session', deps.secureCookies)), authorization: req.getHeader('authorization') }
    const query = readQuery(req.getQuery())
    deps.track(
      answer(ex, deps.log, async () => {
        const caller = await projectCaller(deps, credentials, projectId)
        const parsed = parseIssueFilter(query)
        if (!parsed.ok) throw new ProjectApiError('invalid_filter', { field: parsed.field, message: parsed.message })
        // An api key is the project's, not a person's: it has no "me".
        const filter = resolveAssigneeMe(parsed.filter, caller.requester.userId)
        if (!filter) throw new ProjectApiError('assignee_me_needs_person', { field: 'assignee' })
        const page = await searchIssues(deps.db, caller.projectId, filter, { countNoise: false })
        send(ex, 200, JSON.stringify({ issues: page.issues.map(issueListJson), next_cursor: page.nextCursor }), [['Cache-Control', 'no-store']])
      }),
    )
  })
}
