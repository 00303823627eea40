/**
 * The web side: everything people and agents use besides ingestion. The setup-session API
 * (/api/v1/agent/...), the project API (/api/v1/projects/...), the tool server (/mcp) and the
 * dashboard's pages, registered
 * on the one uWS app the process composes (bin/front/), beside the ingestion routes.
 */
import type uWS from 'uWebSockets.js'
import type { ToolServerLimits } from '../../shared/config/tool-server.js'
import type { KeyAuthenticator } from '../../shared/key-auth.js'
import type { Logger } from '../../shared/log.js'
import type { ObjectStore } from '../../shared/object-store.js'
import type { Orm } from '../../shared/db/orm.js'
import { registerAgentRoutes } from './setup/agent-routes.js'
import { registerCodehostWebhookRoutes } from './codehost/webhook-routes.js'
import type { DashboardDeps } from './http/deps.js'
import { registerDashboardRoutes } from './dashboard-routes.js'
import { registerToolServerRoutes } from './mcp/routes.js'
import { registerDigestApiRoutes } from './project-api/digest-routes.js'
import { registerRecordingApiRoutes } from './project-api/recording-routes.js'
import { registerProjectApiRoutes } from './project-api/routes.js'
import type { SetupDeps } from './setup/sessions.js'
import type { WakeHub } from './setup/wake-hub.js'

export { SdkSeen } from './setup/sdk-seen.js'
export type { SetupDeps } from './setup/sessions.js'
export { WakeHub } from './setup/wake-hub.js'

export interface WebRouteDeps {
  setup: SetupDeps
  /** Wakes held long polls when another process publishes. */
  hub: WakeHub
  dashboard: Pick<DashboardDeps, 'dashboardOrigin' | 'secureCookies' | 'redisKeyPrefix' | 'developmentProjectId' | 'invitationTtlMs' | 'dataDefaults'>
  log: Logger
  /** Counts a request in flight, so a graceful stop lets it answer. */
  track(work: Promise<void>): void
  /** Trusted proxies in front: per-address limits read the client from X-Forwarded-For. */
  proxyHops: number
  /** The investigator's entities, for reading investigations and fixes and asking for them. */
  orm: Orm
  /** config.investigations.leaseMs, for the investigations and fixes people ask for. */
  investigationLeaseMs: number
  /** Where recording chunks are kept: the replay reads them. */
  objects: ObjectStore
  /** The process's key authenticator: the api keys of the tool server and the project API. */
  auth: KeyAuthenticator
  /** What one api key may send to /mcp. */
  toolServer: ToolServerLimits
  /** CODEHOST_WEBHOOK_SECRET: the code-host webhook's deliveries are signed with it (unset: refused). */
  codehostWebhookSecret?: string
}

/** Registers the setup-session API, the project API and the dashboard on app. */
export function registerWebRoutes(app: uWS.TemplatedApp, deps: WebRouteDeps): void {
  const { setup, track, proxyHops, orm } = deps
  registerAgentRoutes(app, { setup, hub: deps.hub, track, proxyHops })
  registerCodehostWebhookRoutes(app, { orm, log: deps.log, secret: deps.codehostWebhookSecret, track })
  const projectApi = {
    db: setup.db,
    orm,
    redis: setup.redis,
    keys: setup.keys,
    investigationLeaseMs: deps.investigationLeaseMs,
    log: deps.log,
    secureCookies: deps.dashboard.secureCookies,
    baseUrl: setup.baseUrl,
    dashboardOrigin: deps.dashboard.dashboardOrigin,
    auth: deps.auth,
    track,
  }
  // Before the project API's catch-all 404 for /api/v1/projects/*.
  registerRecordingApiRoutes(app, { ...projectApi, objects: deps.objects })
  registerDigestApiRoutes(app, projectApi)
  registerProjectApiRoutes(app, projectApi)
  registerToolServerRoutes(app, { ...projectApi, limits: deps.toolServer, baseUrl: setup.baseUrl })
  registerDashboardRoutes(app, { ...deps.dashboard, setup, log: deps.log, baseUrl: setup.baseUrl, codehost: setup.codehost, track, proxyHops, orm, investigationLeaseMs: deps.investigationLeaseMs, objects: deps.objects, auth: deps.auth })
}
