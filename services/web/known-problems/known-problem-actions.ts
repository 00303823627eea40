/**
 * The two answers on known problems (docs/known-problems.md): whether published known problems go
 * to the investigator at once (projects.friction_auto_investigate; off by default, so a person
 * approves each: a project setting, so an owner's alone) and the answer to the publish gate's
 * same-fix question (triage: any member's, like Investigate). Anybody else is told "forbidden".
 */
import type uWS from 'uWebSockets.js'
import type { DashboardDeps } from '../http/deps.js'
import { answerSameFix, type SameFixAnswer } from '../../matcher/commands.js'
import { getKnownProblem } from '../../matcher/read/known-problems.js'
import { OWNERS_ONLY } from '../projects/own-project.js'
import { getMemberProject, type ProjectFacts } from '../projects/project-queries.js'
import { PageError, redirect } from '../http/respond.js'
import { postForm, type FormContext } from '../http/route.js'
import { signInPath } from '../http/viewer.js'

const ANSWERS: readonly SameFixAnswer[] = ['same', 'different']

/** The project for a member; with owners, only for an owner (OWNERS_ONLY for a member). */
async function memberOf(deps: DashboardDeps, ctx: FormContext, back: string, owners = false): Promise<ProjectFacts | undefined> {
  const { ex, viewer } = ctx
  if (!viewer.session) {
    redirect(ex, signInPath(back))
    return undefined
  }
  const project = await getMemberProject(deps.setup.db, viewer.session.user.id, ctx.request.params[0]!)
  if (!project) throw new PageError(403, 'Not allowed', 'Only members of the project can change this. Sign in as one of them, or ask them to.')
  if (owners && project.role !== 'owner') throw OWNERS_ONLY('change whether known problems are investigated at once')
  return project
}

/** Registers the two forms. */
export function registerKnownProblemActions(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  const db = deps.setup.db

  postForm(app, deps, '/projects/:id/known-problems/auto-investigate', async (ctx) => {
    const back = `/projects/${encodeURIComponent(ctx.request.params[0]!)}/known-problems`
    const project = await memberOf(deps, ctx, back, true)
    if (!project) return
    const on = ctx.form.get('on')
    if (on !== '1' && on !== '0') throw new PageError(400, 'Not changed', 'The form sends on=1 or on=0. Reload the known problems page and use its button.')
    await db.query('UPDATE projects SET friction_auto_investigate = $2 WHERE id = $1', [project.id, on === '1'])
    deps.log.info('known problems auto-investigation set', { project_id: project.id, user_id: ctx.viewer.session!.user.id, on: on === '1' })
    redirect(ctx.ex, `/projects/${project.id}/known-problems`)
  })

  postForm(app, deps, '/projects/:id/known-problems/:ticket_id/same-fix', async (ctx) => {
    const [projectParam, ticketParam] = ctx.request.params as [string, string]
    const back = `/projects/${encodeURIComponent(projectParam)}/known-problems/${encodeURIComponent(ticketParam)}`
    const project = await memberOf(deps, ctx, back)
    if (!project) return
    const problem = await getKnownProblem(db, project.id, ticketParam)
    if (!problem) throw new PageError(404, 'Not found', 'This project has no such known problem. Pick one from its known problems list.')
    const answer = ANSWERS.find((a) => a === ctx.form.get('answer'))
    if (!answer) throw new PageError(400, 'Not answered', 'The answer is "same" or "different". Reload the known problem and use its buttons.')
    // Only a question that was asked can be answered; the other problem must still be there to answer about.
    if (!(await answerSameFix(db, project.id, problem.id, answer))) throw new PageError(409, 'Not answered', 'No same-fix question is open on this known problem (the other problem may have been removed). Reload the page.')
    deps.log.info('known problem same-fix answered', { project_id: project.id, ticket_id: problem.id, user_id: ctx.viewer.session!.user.id, answer })
    redirect(ctx.ex, `/projects/${project.id}/known-problems/${problem.id}`)
  })
}
