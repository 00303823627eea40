/**
 * The dashboard on the port's one uWS app: server-rendered pages, with no client-side script but
 * the replay's (served by us, on that page only). Sign-in, the setup approval page, and the
 * signed-in person's projects, issues (with the owner's Investigate and Fix this buttons), session
 * recordings, known problems, project settings and API keys.
 */
import type uWS from 'uWebSockets.js'
import { exchange } from '../../../shared/http/exchange.js'
import { registerApiKeyRoutes } from './api-key-routes.js'
import { registerApprovalRoutes } from './approval-routes.js'
import { registerAuthRoutes } from './auth-routes.js'
import type { DashboardDeps } from './deps.js'
import { registerDigestRoutes } from './digest-routes.js'
import { registerFixRoutes } from './fix-routes.js'
import { registerKnownProblemActions } from './known-problem-actions.js'
import { registerKnownProblemRoutes } from './known-problem-routes.js'
import { registerProjectRoutes } from './project-routes.js'
import { registerRecordingRoutes } from './recording-routes.js'
import { registerSettingsRoutes } from './settings-routes.js'
import { sendAsset } from './respond.js'
import { ICON, ICON_PATH, STYLESHEET, STYLESHEET_PATH } from './assets.js'

export type { DashboardDeps } from './deps.js'
export { oauthWarnings } from './oauth-settings.js'

/** Registers every dashboard route on app. */
export function registerDashboardRoutes(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  app.get(STYLESHEET_PATH, (res) => sendAsset(exchange(res), 'text/css; charset=utf-8', STYLESHEET))
  app.get(ICON_PATH, (res) => sendAsset(exchange(res), 'image/svg+xml', ICON))
  registerAuthRoutes(app, deps)
  registerApprovalRoutes(app, deps)
  registerProjectRoutes(app, deps)
  registerRecordingRoutes(app, deps)
  registerKnownProblemActions(app, deps)
  registerKnownProblemRoutes(app, deps)
  registerDigestRoutes(app, deps)
  registerFixRoutes(app, deps)
  registerSettingsRoutes(app, deps)
  registerApiKeyRoutes(app, deps)
}
