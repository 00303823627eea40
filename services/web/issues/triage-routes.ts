/**
 * A member's triage on the dashboard (docs/issues.md, docs/dashboard.md): resolve, ignore, reopen,
 * merge and undo a merge on the issue page, and resolve, ignore, reopen or merge the issues ticked
 * on the list. Each change runs in one transaction through the grouper's commands, which write the
 * history with the person as its actor; then the browser goes back (303) to where it was.
 */
import type uWS from 'uWebSockets.js'
import type { Queryable } from '../../../shared/db/index.js'
import { isUuid } from '../../../shared/domain/uuid.js'
import { mergeIssues, unmergeIssue } from '../../grouper/commands/merge.js'
import { triageIssues, TriageRefused } from '../../grouper/commands/triage.js'
import { issueTriage, type IssueTriage } from '../../grouper/read/triage.js'
import type { DashboardDeps } from '../http/deps.js'
import { PageError, redirect } from '../http/respond.js'
import { postForm, type FormContext } from '../http/route.js'
import { signInPath } from '../http/viewer.js'
import { getMemberProject } from '../projects/project-queries.js'
import { assignToMember } from './assignment.js'
import { personActor, readMergeTarget, readReason, readSelectedIds, readTriageChange, type TriageActor } from './triage-form.js'

const FORBIDDEN = 'Only members of the project can triage its issues. Sign in as one of them, or ask them to do it.'
const NO_ISSUE = (): PageError => new PageError(404, 'Not found', 'This project has no such issue. Pick one from its issue list.')

/** Who acts on which project; undefined after sending a signed-out browser to sign in. */
interface Acting {
  projectId: string
  by: TriageActor
}

/**
 * A signed-in member of the project a triage post names. Anybody else is "forbidden", also for a
 * project that does not exist, so the answer tells nothing about other people's projects.
 */
async function actingMember(deps: DashboardDeps, ctx: FormContext, back: string): Promise<Acting | undefined> {
  const { viewer, request } = ctx
  if (!viewer.session) {
    redirect(ctx.ex, signInPath(back))
    return undefined
  }
  const project = await getMemberProject(deps.setup.db, viewer.session.user.id, request.params[0]!)
  if (!project) throw new PageError(403, 'Not allowed', FORBIDDEN)
  return { projectId: project.id, by: personActor(viewer) }
}

/** The grouper's refusal of a merge, as a page saying what to do. */
function refusedPage(error: unknown): never {
  if (error instanceof TriageRefused) throw new PageError(409, 'Not merged', error.message)
  throw error
}

/** Registers the issue page's triage, merge and undo-merge posts, and the list's bulk post. */
export function registerTriageRoutes(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  const db = deps.setup.db

  /** A post about one issue: a member, and an issue of that project; run changes it in one transaction. */
  const onIssue = (action: string, run: (tx: Queryable, acting: Acting, issueId: string, triage: IssueTriage, form: URLSearchParams) => Promise<void>): void => {
    postForm(app, deps, `/projects/:id/issues/:issue_id/${action}`, async (ctx) => {
      const [projectId, issueId] = ctx.request.params as [string, string]
      const issuePath = `/projects/${encodeURIComponent(projectId)}/issues/${encodeURIComponent(issueId)}`
      const acting = await actingMember(deps, ctx, issuePath)
      if (!acting) return
      if (!isUuid(issueId)) throw NO_ISSUE()
      await db.withTransaction(async (tx) => {
        const triage = await issueTriage(tx, acting.projectId, issueId)
        if (!triage) throw NO_ISSUE()
        await run(tx, acting, issueId, triage, ctx.form)
      })
      deps.log.info('issue triaged', { project_id: acting.projectId, issue_id: issueId, user_id: acting.by.id, action })
      redirect(ctx.ex, issuePath)
    })
  }

  onIssue('triage', async (tx, { projectId, by }, issueId, triage, form) => {
    const change = readTriageChange(form)
    if (triage.mergedInto) throw new PageError(409, 'Not changed', 'This issue is merged into another, whose triage it follows. Undo the merge first, or triage the issue it was merged into.')
    await triageIssues(tx, projectId, [issueId], change, by, readReason(form))
  })

  onIssue('merge', async (tx, { projectId, by }, issueId, _triage, form) => {
    const into = readMergeTarget(form, projectId)
    if (into === issueId) throw new PageError(409, 'Not merged', 'An issue cannot be merged into itself. Enter the id or address of another issue of this project.')
    await mergeIssues(tx, projectId, into, [issueId], by, readReason(form)).catch(refusedPage)
  })

  onIssue('unmerge', async (tx, { projectId, by }, issueId, _triage, form) => {
    if (!(await unmergeIssue(tx, projectId, issueId, by, readReason(form)))) throw new PageError(409, 'Not merged', 'This issue is not merged into another, so there is nothing to undo.')
  })

  // Assign to a member ('' or none: nobody; me: the person posting); anybody else is refused, nothing changes.
  postForm(app, deps, '/projects/:id/issues/:issue_id/assign', async (ctx) => {
    const [projectId, issueId] = ctx.request.params as [string, string]
    const issuePath = `/projects/${encodeURIComponent(projectId)}/issues/${encodeURIComponent(issueId)}`
    const acting = await actingMember(deps, ctx, issuePath)
    if (!acting) return
    const asked = (ctx.form.get('assignee') ?? '').trim()
    const userId = asked === '' || asked === 'none' ? null : asked === 'me' ? acting.by.id : asked
    const result = await assignToMember(db, acting.projectId, issueId, userId, acting.by)
    if (result.kind === 'no_issue') throw NO_ISSUE()
    if (result.kind === 'not_member') throw new PageError(409, 'Not assigned', 'That person is not a member of this project, so the issue was not assigned. Pick a member from the list; an owner can invite others on the Members tab.')
    deps.log.info('issue assigned', { project_id: acting.projectId, issue_id: issueId, user_id: acting.by.id, assignee: result.assignee?.id ?? null, changed: result.changed })
    redirect(ctx.ex, issuePath)
  })

  postForm(app, deps, '/projects/:id/issues/bulk', async (ctx) => {
    const listPath = `/projects/${encodeURIComponent(ctx.request.params[0]!)}/issues`
    const acting = await actingMember(deps, ctx, listPath)
    if (!acting) return
    const { projectId, by } = acting
    const { form } = ctx
    const ids = readSelectedIds(form)
    const reason = readReason(form)
    let changed: number
    if (form.get('action') === 'merge') {
      const [target, ...sources] = ids
      if (sources.length === 0) throw new PageError(400, 'Not merged', 'Tick at least two issues: the others are merged into the first one ticked.')
      changed = (await db.withTransaction((tx) => mergeIssues(tx, projectId, target!, sources, by, reason)).catch(refusedPage)).length
    } else {
      const change = readTriageChange(form)
      // Ids of another project, and merged issues, are left out by the command: nothing of theirs changes.
      changed = (await db.withTransaction((tx) => triageIssues(tx, projectId, ids, change, by, reason))).length
    }
    deps.log.info('issues triaged in bulk', { project_id: projectId, user_id: by.id, action: form.get('action'), selected: ids.length, changed })
    redirect(ctx.ex, `${listPath}?${backQuery(form.get('back') ?? '', changed)}`)
  })
}

/** The list's query the bulk form came from (its filters, not its page), with the count changed. */
function backQuery(back: string, changed: number): string {
  const query = new URLSearchParams(back.slice(0, 2000))
  query.delete('cursor')
  query.set('changed', String(changed))
  return query.toString()
}
