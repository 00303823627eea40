/**
 * The project API's triage of issues (docs/issues.md, docs/dashboard.md): resolve, ignore, reopen,
 * merge, undo a merge and assign to a member, one issue or (resolve, ignore, reopen) up to a hundred at once, and an
 * issue's history. Each change runs in one transaction through the grouper's commands, which
 * write one history line per issue moved: an api key's change is recorded as an agent's (the key's
 * id), a session's as the person's. Ids of another project are "not found" and change nothing.
 */
import type uWS from 'uWebSockets.js'
import type { Db } from '../../../shared/db/index.js'
import { exchange, readBodyText, send, type Exchange } from '../../../shared/http/exchange.js'
import type { KeyAuthenticator } from '../../../shared/key-auth.js'
import { parseKey } from '../../../shared/keys.js'
import type { Logger } from '../../../shared/log.js'
import { isUuid } from '../../../shared/domain/uuid.js'
import { mergeIssues, unmergeIssue } from '../../grouper/commands/merge.js'
import { triageIssues, TriageRefused } from '../../grouper/commands/triage.js'
import { projectIssueIds } from '../../grouper/read/issue-ids.js'
import { issueHistory, issueTriage, type IssueTriage } from '../../grouper/read/triage.js'
import { getWebSession } from '../accounts/web-sessions.js'
import { assignToMember } from '../issues/assignment.js'
import { isSameOriginPost } from '../http/viewer.js'
import { BULK_FIELDS, onlyFields, parseBody, readBulkChange, readIgnore, readIssueIds, readMergeTarget, readReason, readResolve } from './issue-action-bodies.js'
import { projectCaller, type Caller } from './caller.js'
import { ProjectApiError } from './errors.js'
import { readApiRequest, type ApiRequest } from './request.js'

// The grouper's triage types as its command and read face publish them (triage/types.ts is its insides).
type TriageChange = Parameters<typeof triageIssues>[3]
type TriageActor = Parameters<typeof triageIssues>[4]
type HistoryEntry = Awaited<ReturnType<typeof issueHistory>>[number]

/** What the actions need (a part of ProjectApiDeps). */
export interface IssueActionDeps {
  db: Db
  log: Logger
  secureCookies: boolean
  baseUrl: string
  dashboardOrigin: string | undefined
  auth: KeyAuthenticator
  track(work: Promise<void>): void
}

/** routes.ts's answer: runs a route, turning every failure into a catalogued answer. */
export type Answer = (ex: Exchange, log: Logger, run: () => Promise<void>) => Promise<void>

/** An action's body is a few short fields. */
const MAX_BODY_BYTES = 64 * 1024

const NO_STORE: ReadonlyArray<[string, string]> = [['Cache-Control', 'no-store']]

const ISSUE_PATH = '/api/v1/projects/:project_id/issues/:issue_id'

/** The caller, who it acts as, and the body. */
interface Acting {
  caller: Caller
  by: TriageActor
  body: Record<string, unknown>
  reason: string
}

/** Registers the triage actions and the history read (before routes.ts's catch-all 404). */
export function registerIssueActionRoutes(app: uWS.TemplatedApp, deps: IssueActionDeps, answer: Answer): void {
  const post = (path: string, run: (ex: Exchange, request: ApiRequest, acting: Acting) => Promise<void>): void => {
    app.post(path, (res, req) => {
      const ex = exchange(res)
      const request = readApiRequest(req, deps.secureCookies)
      const text = readBodyText(ex, MAX_BODY_BYTES, false)
      text.catch(() => {}) // observed below, unless the request fails first
      deps.track(
        answer(ex, deps.log, async () => {
          // The session cookie goes with any post a browser makes: one from another site's page is refused.
          if (!request.authorization && !isSameOriginPost(deps, request)) throw new ProjectApiError('cross_site_request')
          const caller = await projectCaller(deps, { sessionToken: request.token, authorization: request.authorization }, request.projectId)
          if (request.issueId !== '' && !isUuid(request.issueId)) throw new ProjectApiError('invalid_id', { field: 'issue_id' })
          const body = parseBody(await text.catch(() => Promise.reject(new ProjectApiError('body_too_large'))))
          await run(ex, request, { caller, by: await actorOf(deps, request, caller), body, reason: readReason(body) })
        }),
      )
    })
  }

  /** One issue's change: the issue is the caller's project's and not merged, then change runs in one transaction. */
  const single = (action: string, fields: readonly string[], change: (body: Record<string, unknown>) => TriageChange): void => {
    post(`${ISSUE_PATH}/${action}`, async (ex, request, { caller, by, body, reason }) => {
      onlyFields(body, fields)
      const asked = change(body)
      const moved = await deps.db.withTransaction(async (tx) => {
        await ownUnmerged(tx, caller.projectId, request.issueId)
        return triageIssues(tx, caller.projectId, [request.issueId], asked, by, reason)
      })
      await answerTriage(ex, deps.db, caller.projectId, request.issueId, moved.length > 0)
    })
  }
  single('resolve', ['mode', 'reason'], readResolve)
  single('ignore', ['until', 'more_events', 'more_users', 'reason'], (body) => readIgnore(body))
  single('reopen', ['reason'], () => ({ action: 'reopen' }))

  post(`${ISSUE_PATH}/merge`, async (ex, request, { caller, by, body, reason }) => {
    onlyFields(body, ['into', 'reason'])
    const into = readMergeTarget(body, request.issueId)
    await deps.db.withTransaction(async (tx) => {
      await ownUnmerged(tx, caller.projectId, request.issueId)
      if (!(await issueTriage(tx, caller.projectId, into))) throw new ProjectApiError('issue_not_found', { field: 'into', message: 'This project has no issue with the id in into. Check it: an issue belongs to exactly one project.' })
      await mergeIssues(tx, caller.projectId, into, [request.issueId], by, reason).catch(refused)
    })
    await answerTriage(ex, deps.db, caller.projectId, request.issueId, true)
  })

  post(`${ISSUE_PATH}/unmerge`, async (ex, request, { caller, by, body, reason }) => {
    onlyFields(body, ['reason'])
    await deps.db.withTransaction(async (tx) => {
      if (!(await issueTriage(tx, caller.projectId, request.issueId))) throw new ProjectApiError('issue_not_found')
      if (!(await unmergeIssue(tx, caller.projectId, request.issueId, by, reason))) throw new ProjectApiError('not_merged')
    })
    await answerTriage(ex, deps.db, caller.projectId, request.issueId, true)
  })

  post(`${ISSUE_PATH}/assign`, async (ex, request, { caller, by, body }) => {
    onlyFields(body, ['user_id'])
    const asked = body.user_id
    // "me" is the signed-in person; an api key is the project's, with nobody behind it to be "me".
    if (asked === 'me' && !caller.requester.userId) throw new ProjectApiError('assignee_me_needs_person', { field: 'user_id' })
    const userId = asked === null ? null : asked === 'me' ? caller.requester.userId : typeof asked === 'string' && isUuid(asked) ? asked : undefined
    if (userId === undefined) throw new ProjectApiError('invalid_assignee', { field: 'user_id' })
    const result = await assignToMember(deps.db, caller.projectId, request.issueId, userId, by)
    if (result.kind === 'no_issue') throw new ProjectApiError('issue_not_found')
    if (result.kind === 'not_member') throw new ProjectApiError('assignee_not_member', { field: 'user_id' })
    send(ex, 200, JSON.stringify({ issue_id: request.issueId, changed: result.changed, assignee: result.assignee }), NO_STORE)
  })

  post('/api/v1/projects/:project_id/issues/triage', async (ex, _request, { caller, by, body, reason }) => {
    const change = readBulkChange(body)
    onlyFields(body, BULK_FIELDS[change.action])
    const ids = readIssueIds(body)
    const { moved, merged } = await deps.db.withTransaction(async (tx) => {
      const own = await projectIssueIds(tx, caller.projectId, ids)
      const missing = ids.filter((id) => !own.has(id))
      if (missing.length > 0) throw new ProjectApiError('issue_not_found', { field: 'issues', message: `This project has no issue with ${missing.length === 1 ? 'the id' : 'the ids'} ${missing.slice(0, 5).join(', ')}; nothing changed. Check the ids: an issue belongs to exactly one project.`, extra: { missing } })
      return { moved: await triageIssues(tx, caller.projectId, ids, change, by, reason), merged: ids.filter((id) => own.get(id)) }
    })
    const changed = new Set(moved.map((m) => m.id))
    send(ex, 200, JSON.stringify({ moved, unchanged: ids.filter((id) => !changed.has(id) && !merged.includes(id)), merged }), NO_STORE)
  })

  app.get(`${ISSUE_PATH}/history`, (res, req) => {
    const ex = exchange(res)
    const request = readApiRequest(req, deps.secureCookies)
    deps.track(
      answer(ex, deps.log, async () => {
        const caller = await projectCaller(deps, { sessionToken: request.token, authorization: request.authorization }, request.projectId)
        if (!isUuid(request.issueId)) throw new ProjectApiError('invalid_id', { field: 'issue_id' })
        const triage = await issueTriage(deps.db, caller.projectId, request.issueId)
        if (!triage) throw new ProjectApiError('issue_not_found')
        const history = await issueHistory(deps.db, request.issueId)
        send(ex, 200, JSON.stringify({ issue_id: request.issueId, triage: triageJson(triage), history: history.map(historyJson) }), NO_STORE)
      }),
    )
  })
}

/** Who the history names: an api key is an agent (its id, never its secret); a session, its person. */
async function actorOf(deps: IssueActionDeps, request: ApiRequest, caller: Caller): Promise<TriageActor> {
  if (caller.byKey) {
    const id = parseKey(/^Bearer[ \t]+(\S+)/i.exec(request.authorization)?.[1] ?? '')?.id ?? ''
    return { kind: 'agent', id, label: `agent (key ${id})` }
  }
  const user = (await getWebSession(deps.db, request.token))?.user
  return { kind: 'person', id: caller.requester.userId ?? '', label: user?.email ?? user?.codehostLogin ?? user?.displayName ?? 'a person' }
}

/** The issue is of the project (else 404) and not merged into another (else 409 with the target). */
async function ownUnmerged(tx: Parameters<typeof issueTriage>[0], projectId: string, issueId: string): Promise<void> {
  const triage = await issueTriage(tx, projectId, issueId)
  if (!triage) throw new ProjectApiError('issue_not_found')
  if (triage.mergedInto) throw new ProjectApiError('issue_merged', { extra: { merged_into: triage.mergedInto.id } })
}

/** A merge the grouper refused, as the API's 409 with its message. */
function refused(error: unknown): never {
  if (error instanceof TriageRefused) throw new ProjectApiError('merge_refused', { message: error.message, extra: { reason_code: error.code } })
  throw error
}

async function answerTriage(ex: Exchange, db: Db, projectId: string, issueId: string, changed: boolean): Promise<void> {
  const triage = await issueTriage(db, projectId, issueId)
  send(ex, 200, JSON.stringify({ issue_id: issueId, changed, triage: triage ? triageJson(triage) : null }), NO_STORE)
}

/** An issue's triage as the API answers it: snake_case, times as ISO strings. */
export function triageJson(triage: IssueTriage): Record<string, unknown> {
  return {
    state: triage.triage,
    resolved_at: triage.resolvedAt?.toISOString() ?? null,
    resolved_mode: triage.resolvedMode || null,
    resolved_release: triage.resolvedRelease,
    ignored_until: triage.ignoredUntil?.toISOString() ?? null,
    ignored_until_events: triage.ignoredUntilEvents,
    ignored_until_users: triage.ignoredUntilUsers,
    regressed_at: triage.regressedAt?.toISOString() ?? null,
    regressed_release: triage.regressedRelease,
    merged_into: triage.mergedInto,
    merged_from: triage.mergedFrom,
  }
}

/** One history line as the API answers it. */
export function historyJson(entry: HistoryEntry): Record<string, unknown> {
  return {
    at: entry.at.toISOString(),
    actor: { kind: entry.actorKind, id: entry.actorId, label: entry.actorLabel },
    action: entry.action,
    from: entry.fromState,
    to: entry.toState,
    reason: entry.reason,
    detail: entry.detail,
  }
}
