/**
 * New project (GET and POST /projects/new): a signed-in person names a project (and optionally
 * its repository) and gets its three keys on the answer to the form, this once, with the snippets
 * that use them. The answer is never a redirect target: reloading or going back cannot show the
 * keys again, and nothing logs them.
 */
import type uWS from 'uWebSockets.js'
import type { DashboardDeps } from '../http/deps.js'
import { redirect, sendPage } from '../http/respond.js'
import { getPage, postForm } from '../http/route.js'
import { signInPath } from '../http/viewer.js'
import { setRepository, type RepoOutcome } from '../settings/project-settings.js'
import { checkNewProject, createProjectWithKeys } from './create-project.js'
import { getOwnProject } from './project-queries.js'
import { projectSnippets } from './snippets.js'
import { newProjectPage, projectCreatedPage } from './views/new-project.js'

const PATH = '/projects/new'

/** What the answer says about the repository the form named. */
function repoNote(repo: string, outcome: RepoOutcome | 'stored_unchecked' | 'none'): string {
  if (outcome === 'none') return 'No repository is attached; attach one in the project settings when you want fixes proposed against it.'
  if (outcome === 'stored_unchecked') return `Repository ${repo} is attached. This service has no code host app, so nobody checked that it exists.`
  if (outcome.kind === 'attached') return `Repository ${repo} is attached; the code host app can see it.`
  if (outcome.kind === 'unchecked') return `Repository ${repo} is attached, unchecked.`
  return `Repository ${repo} is not attached: the code host did not confirm it. The project settings say what to do, and attach it once it is confirmed.`
}

/** Registers /projects/new. */
export function registerCreateProjectRoutes(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  const db = deps.setup.db

  getPage(app, deps, PATH, async ({ ex, viewer }) => {
    if (!viewer.session) return redirect(ex, signInPath(PATH), { status: 302 })
    sendPage(ex, 200, newProjectPage(viewer))
  })

  postForm(app, deps, PATH, async ({ ex, viewer, form }) => {
    if (!viewer.session) return redirect(ex, signInPath(PATH))
    const typed = { name: form.get('name') ?? '', repo: form.get('repo') ?? '' }
    const checked = checkNewProject(typed)
    if (!checked.ok) return sendPage(ex, 400, newProjectPage(viewer, { ...typed, error: { field: checked.field, message: checked.message } }))
    const userId = viewer.session.user.id
    // Without a code host the repository is stored with the project, as the settings page stores it;
    // with one it is attached after, through the settings page's own check.
    const storeNow = deps.codehost ? '' : checked.repo
    const created = await createProjectWithKeys(db, { name: checked.name, repo: storeNow, ownerId: userId, keyLabel: 'dashboard: new project' })
    deps.log.info('project created', { project_id: created.projectId, user_id: userId, via: 'dashboard' })
    let outcome: Parameters<typeof repoNote>[1] = checked.repo === '' ? 'none' : 'stored_unchecked'
    if (checked.repo !== '' && deps.codehost) {
      const project = await getOwnProject(db, userId, created.projectId)
      outcome = project ? await setRepository({ db, redis: deps.setup.redis, keys: deps.setup.keys, codehost: deps.codehost }, userId, project, checked.repo) : 'none'
      created.repo = outcome !== 'none' && (outcome.kind === 'attached' || outcome.kind === 'unchecked') ? checked.repo : ''
    }
    sendPage(ex, 200, projectCreatedPage(viewer, created, projectSnippets(deps.baseUrl, created.keys, created.dsnNumber), repoNote(checked.repo, outcome)))
  })
}
