/**
 * The project's digests page (docs/digest.md, "Read paths"): the latest daily digests, as sent,
 * with each item's frozen facts and whether its written paragraph passed the check. Access is the
 * project pages': its owner only.
 */
import type uWS from 'uWebSockets.js'
import { readLatestDigests } from '../../digester/read.js'
import { readProjectFacts } from '../setup/project-facts.js'
import type { DashboardDeps } from '../http/deps.js'
import { NOT_FOUND, ownProject } from '../projects/own-project.js'
import { sendPage } from '../http/respond.js'
import { getPage } from '../http/route.js'
import { digestsPage } from './views/digests.js'

/** Digests the page shows: two weeks. */
const SHOWN = 14

/** Registers GET /projects/:id/digests. */
export function registerDigestRoutes(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  getPage(app, deps, '/projects/:id/digests', async (ctx) => {
    const owned = await ownProject(deps, ctx)
    if (!owned) return
    const [setup, digests] = await Promise.all([readProjectFacts(deps.setup.db, deps.baseUrl, owned.project.id, null), readLatestDigests(deps.setup.db, owned.project.id, SHOWN)])
    // Deleted between the two reads: the same answer as a project that never was.
    if (!setup) throw NOT_FOUND()
    sendPage(ctx.ex, 200, digestsPage(ctx.viewer, owned.project, setup, digests))
  })
}
