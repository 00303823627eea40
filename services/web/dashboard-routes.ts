/**
 * The dashboard on the port's one uWS app: server-rendered pages, with no client-side script but
 * the replay's (served by us, on that page only). Sign-in, the setup approval page, and the
 * signed-in person's projects, issues (with the members' Investigate and Fix this buttons), session
 * recordings, known problems, members and invitations, project settings and API keys.
 */
import type uWS from 'uWebSockets.js'
import { exchange } from '../../shared/http/exchange.js'
import { registerAlertRoutes } from './alerts/alert-routes.js'
import { registerApiKeyRoutes } from './accounts/api-key-routes.js'
import { registerApprovalRoutes } from './setup/approval-routes.js'
import { registerAuthRoutes } from './accounts/auth-routes.js'
import type { DashboardDeps } from './http/deps.js'
import { registerDigestRoutes } from './digests/digest-routes.js'
import { registerFixRoutes } from './issues/fix-routes.js'
import { registerKnownProblemActions } from './known-problems/known-problem-actions.js'
import { registerKnownProblemRoutes } from './known-problems/known-problem-routes.js'
import { registerIssueRoutes } from './issues/issue-routes.js'
import { registerInvitationRoutes } from './members/invitation-routes.js'
import { registerMemberRoutes } from './members/member-routes.js'
import { registerTriageRoutes } from './issues/triage-routes.js'
import { registerProjectRoutes } from './projects/project-routes.js'
import { registerRecordingRoutes } from './recordings/recording-routes.js'
import { registerSettingsRoutes } from './settings/settings-routes.js'
import { sendAsset } from './http/respond.js'
import { ICON, ICON_PATH, STYLESHEET, STYLESHEET_PATH } from './http/assets.js'

export type { DashboardDeps } from './http/deps.js'
export { oauthWarnings } from './accounts/oauth-settings.js'

/** Registers every dashboard route on app. */
export function registerDashboardRoutes(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  app.get(STYLESHEET_PATH, (res) => sendAsset(exchange(res), 'text/css; charset=utf-8', STYLESHEET))
  app.get(ICON_PATH, (res) => sendAsset(exchange(res), 'image/svg+xml', ICON))
  registerAuthRoutes(app, deps)
  registerApprovalRoutes(app, deps)
  registerProjectRoutes(app, deps)
  registerIssueRoutes(app, deps)
  registerRecordingRoutes(app, deps)
  registerKnownProblemActions(app, deps)
  registerKnownProblemRoutes(app, deps)
  registerDigestRoutes(app, deps)
  registerAlertRoutes(app, deps)
  registerFixRoutes(app, deps)
  registerTriageRoutes(app, deps)
  registerSettingsRoutes(app, deps)
  registerApiKeyRoutes(app, deps)
  registerMemberRoutes(app, deps)
  registerInvitationRoutes(app, deps)
}
