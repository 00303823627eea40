/**
 * A project's issues: the list, one issue (with its investigation and fix, and the owner's
 * "Investigate again"). The owner's "Fix this": fix-routes.ts; triage: triage-routes.ts.
 */
import type uWS from 'uWebSockets.js'
import { parseIssueFilter, resolveAssigneeMe } from '../../grouper/read/issue-filter.js'
import { searchIssues } from '../../grouper/read/issue-list.js'
import { issueHistory, issueTriage } from '../../grouper/read/triage.js'
import { getDailyCounts, getFacets, getIssueDetail, getLatestEvent, listRecentEvents } from '../../grouper/read/issues.js'
import { requestInvestigation } from '../../investigator/commands.js'
import { readFix } from '../../investigator/read/fix.js'
import { fixWithheld, readInvestigation, readNotInvestigated } from '../../investigator/read/investigation.js'
import { getKnownProblemIdOfIssue } from '../../matcher/read/known-problems.js'
import { listIssueSessions } from '../../recorder/read/recordings.js'
import type { DashboardDeps } from '../http/deps.js'
import { PageError, redirect, sendPage } from '../http/respond.js'
import { getPage, postForm } from '../http/route.js'
import { knownProblemPath } from '../known-problems/views/known-problem-words.js'
import { listLinkedPullRequests } from '../mcp/pull-requests.js'
import { ownProject } from '../projects/own-project.js'
import { listMembers, memberLabel } from '../members/member-store.js'
import { assigneeJson } from './assignment.js'
import { issueForAction } from './issue-actions.js'
import { FIX_NOTICES } from './views/fix.js'
import { isActive, type InvestigationNotice } from './views/investigation.js'
import { issuePage } from './views/issue-page.js'
import { issuesPage } from './views/issue-list.js'

const NO_ISSUE = (): PageError => new PageError(404, 'Not found', 'This project has no such issue. Pick one from its issue list.')
const NOTICES: readonly InvestigationNotice[] = ['started', 'in_flight']

/**
 * Registers /projects/:id/issues (filtered by the parameters of parseIssueFilter), one issue (?investigation= and ?fix=
 * name the notice after a button) and the Investigate button's POST.
 */
export function registerIssueRoutes(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  const db = deps.setup.db

  getPage(app, deps, '/projects/:id/issues', async (ctx) => {
    const owned = await ownProject(deps, ctx)
    if (!owned) return
    const { query } = ctx.request
    const parsed = parseIssueFilter(query)
    if (!parsed.ok) return sendPage(ctx.ex, 400, issuesPage(ctx.viewer, owned.project, { query, search: undefined, error: parsed.message }))
    // A signed-in person always has a "me".
    const filter = resolveAssigneeMe(parsed.filter, owned.userId) ?? parsed.filter
    sendPage(ctx.ex, 200, issuesPage(ctx.viewer, owned.project, { query, search: await searchIssues(db, owned.project.id, filter) }))
  })

  getPage(app, deps, '/projects/:id/issues/:issue_id', async (ctx) => {
    const owned = await ownProject(deps, ctx)
    if (!owned) return
    const issue = await getIssueDetail(db, owned.project.id, ctx.request.params[1]!)
    if (!issue) throw NO_ISSUE()
    const [latest, facets, days, recent, sessions, view, fixView, note, ticketId, linked, triage, history, members] = await Promise.all([
      getLatestEvent(db, issue.id),
      getFacets(db, issue.id),
      getDailyCounts(db, issue.id),
      listRecentEvents(db, issue.id),
      listIssueSessions(db, owned.project.id, issue.id),
      readInvestigation(deps.orm, issue.id),
      readFix(deps.orm, issue.id),
      readNotInvestigated(deps.orm, issue),
      issue.kind === 'friction' ? getKnownProblemIdOfIssue(db, owned.project.id, issue.id) : undefined,
      listLinkedPullRequests(db, owned.project.id, issue.id),
      issueTriage(db, owned.project.id, issue.id),
      issueHistory(db, issue.id),
      listMembers(db, owned.project.id),
    ])
    if (!triage) throw NO_ISSUE()
    const { query } = ctx.request
    const base = `/projects/${owned.project.id}/issues/${issue.id}`
    // Only members reach this page (ownProject), and any member may press these buttons.
    const investigation = { view, issueKind: issue.kind, noise: issue.noise, note, requestPath: `${base}/investigate`, notice: NOTICES.find((n) => n === query.get('investigation')) }
    const fix = { view: fixView, issueKind: issue.kind, withheld: fixWithheld(issue, note), requestPath: `${base}/fix`, investigationActive: isActive(view), notice: FIX_NOTICES.find((n) => n === query.get('fix')) }
    const knownProblem = ticketId ? knownProblemPath(owned.project.id, ticketId) : undefined
    const triagePanel = { triage, base, issuesBase: `/projects/${owned.project.id}/issues`, eventCount: Number(issue.event_count), userCount: issue.user_count, assignee: assigneeJson(issue), members: members.map((m) => ({ id: m.user_id, label: memberLabel(m) })) }
    sendPage(ctx.ex, 200, issuePage(ctx.viewer, owned.project, { issue, latest, facets, days, recent, sessions, investigation, fix, knownProblem, linked, triage: triagePanel, history }))
  })

  postForm(app, deps, '/projects/:id/issues/:issue_id/investigate', async (ctx) => {
    const target = await issueForAction(deps, ctx, {
      forbidden: "Only members of the project can ask for an investigation. Sign in as one of them, or ask them to press the button.",
      notError: { title: 'Not investigated', message: 'Only error issues are investigated. Go back to the issue list and pick an error.' },
    })
    if (!target) return
    const { userId, project, issue } = target
    const result = await requestInvestigation(deps.orm, deps.setup.redis, deps.setup.keys, { issueId: issue.id, projectId: project.id, userId, leaseMs: deps.investigationLeaseMs })
    deps.log.info('investigation requested', { project_id: project.id, issue_id: issue.id, user_id: userId, result })
    redirect(ctx.ex, `${target.issuePath}?investigation=${result}`)
  })
}
