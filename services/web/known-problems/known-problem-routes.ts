/**
 * The known-problem pages (docs/dashboard.md, "Known problems"): a project's known problems and one
 * known problem with its evidence and its issue's investigation and fix, and the owner's
 * Investigate (docs/known-problems.md, "Investigating a known problem"). Access is the issue
 * pages': the project's owner only, and another project's known problem is "not found".
 */
import type uWS from 'uWebSockets.js'
import { readFix } from '../../investigator/read/fix.js'
import { requestInvestigation } from '../../investigator/commands.js'
import { readInvestigation } from '../../investigator/read/investigation.js'
import type { DashboardDeps } from '../http/deps.js'
import { FRICTION_KINDS, getKnownProblem, listKnownProblemChecks, listKnownProblems, listMatchedRecordings, MAX_KNOWN_PROBLEM_PAGE, type KnownProblemFilters } from '../../matcher/read/known-problems.js'
import { getMemberProject } from '../projects/project-queries.js'
import { ownProject } from '../projects/own-project.js'
import { PageError, redirect, sendPage } from '../http/respond.js'
import { getPage, postForm } from '../http/route.js'
import { signInPath } from '../http/viewer.js'
import type { InvestigationNotice } from '../issues/views/investigation.js'
import { knownProblemPage } from './views/known-problem-page.js'
import { knownProblemsPage } from './views/known-problems.js'

const NOTICES: readonly InvestigationNotice[] = ['started', 'in_flight']

const NO_PROBLEM = (): PageError => new PageError(404, 'Not found', 'This project has no such known problem. Pick one from its known problems list.')

/** Registers the list and the known problem's page. */
export function registerKnownProblemRoutes(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  const db = deps.setup.db

  getPage(app, deps, '/projects/:id/known-problems', async (ctx) => {
    const owned = await ownProject(deps, ctx)
    if (!owned) return
    const { query } = ctx.request
    const kind = query.get('kind') ?? ''
    // An unknown kind filters nothing rather than everything: the form only offers the known ones.
    const filters: KnownProblemFilters = { archived: query.get('archived') === '1', published: query.get('published') === '1', kind: (FRICTION_KINDS as readonly string[]).includes(kind) ? kind : '' }
    const asked = Number(query.get('p') ?? '1')
    const page = Number.isInteger(asked) && asked >= 1 ? Math.min(asked, MAX_KNOWN_PROBLEM_PAGE) : 1
    const list = await listKnownProblems(db, owned.project.id, filters, page)
    sendPage(ctx.ex, 200, knownProblemsPage(ctx.viewer, owned.project, { filters, page, ...list }))
  })

  getPage(app, deps, '/projects/:id/known-problems/:ticket_id', async (ctx) => {
    const owned = await ownProject(deps, ctx)
    if (!owned) return
    const projectId = owned.project.id
    const problem = await getKnownProblem(db, projectId, ctx.request.params[1]!)
    if (!problem) throw NO_PROBLEM()
    const [recordings, checks, investigation, fix] = await Promise.all([
      listMatchedRecordings(db, projectId, problem.id),
      listKnownProblemChecks(db, projectId, problem.id),
      readInvestigation(deps.orm, problem.issue_id),
      readFix(deps.orm, problem.issue_id),
    ])
    const investigate = { requestPath: `/projects/${projectId}/known-problems/${problem.id}/investigate`, notice: NOTICES.find((n) => n === ctx.request.query.get('investigation')) }
    sendPage(ctx.ex, 200, knownProblemPage(ctx.viewer, owned.project, { problem, recordings, checks, investigation, fix, investigate }))
  })

  // Investigate: the investigator's own opening ("Investigate again" on an issue), so its caps and
  // budgets apply. Like the issue page's actions, anybody but a member is told "forbidden".
  postForm(app, deps, '/projects/:id/known-problems/:ticket_id/investigate', async (ctx) => {
    const { ex, request, viewer } = ctx
    const [projectId, ticketId] = request.params as [string, string]
    if (!viewer.session) return redirect(ex, signInPath(`/projects/${encodeURIComponent(projectId)}/known-problems/${encodeURIComponent(ticketId)}`))
    const userId = viewer.session.user.id
    const project = await getMemberProject(db, userId, projectId)
    if (!project) throw new PageError(403, 'Not allowed', "Only members of the project can ask for an investigation. Sign in as one of them, or ask them to press the button.")
    const problem = await getKnownProblem(db, project.id, ticketId)
    if (!problem) throw NO_PROBLEM()
    if (problem.state === 'archived') throw new PageError(409, 'Not investigated', 'This known problem is archived, and archived problems are not investigated. Go back to the known problems list and pick one that is not archived.')
    const result = await requestInvestigation(deps.orm, deps.setup.redis, deps.setup.keys, { issueId: problem.issue_id, projectId: project.id, userId, leaseMs: deps.investigationLeaseMs })
    deps.log.info('known problem investigation requested', { project_id: project.id, ticket_id: problem.id, issue_id: problem.issue_id, user_id: userId, result })
    redirect(ex, `/projects/${project.id}/known-problems/${problem.id}?investigation=${result}`)
  })
}
