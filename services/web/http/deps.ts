/** What the dashboard routes need from the composition root. */
import type { KeyAuthenticator } from '../../../shared/key-auth.js'
import type { Logger } from '../../../shared/log.js'
import type { ObjectStore } from '../../../shared/object-store.js'
import type { Orm } from '../../../shared/db/orm.js'
import type { CodehostPlugin } from '../../../shared/plugins/types.js'
import type { SetupDeps } from '../setup/sessions.js'
import type { DataSettings } from '../../../shared/config/data.js'

export interface DashboardDeps {
  /** Database, Redis and the setup-session functions the approval page calls. */
  setup: SetupDeps
  log: Logger
  /** Public address of the service (config.baseUrl); approval links start with it. */
  baseUrl: string
  /** Where people open the dashboard (DASHBOARD_ORIGIN); the OAuth callback lives there. */
  dashboardOrigin: string | undefined
  codehost: CodehostPlugin | undefined
  /** True when the dashboard is served over https: cookies get Secure and the __Host- prefix. */
  secureCookies: boolean
  /** config.invitationTtlMs (SVC_INVITATION_TTL_DAYS): how long a new invitation link works. */
  invitationTtlMs: number
  /** config.redisKeyPrefix: the sign-in throttle keeps its counters under it. */
  redisKeyPrefix: string
  /** config.data's defaults a project's blank data limits mean (SVC_RETENTION_DAYS, SVC_PROJECT_EVENTS_PER_MINUTE); absent, those variables' own defaults. */
  dataDefaults?: Pick<DataSettings, 'retentionDays' | 'projectEventsPerMinute'>
  /** Counts a request in flight, so the app's graceful close waits for it (bin/front/app.ts's track). */
  track?: (work: Promise<void>) => void
  /** Trusted proxies in front (SVC_TRUSTED_PROXY_HOPS): where the client address is read from. */
  proxyHops?: number
  /** The investigator's entities: the issue page reads an issue's investigation through them. */
  orm: Orm
  /** config.investigations.leaseMs: how long a requested investigation may wait before the sweeper dispatches it again. */
  investigationLeaseMs: number
  /** Where recording chunks are kept: the session page reads them for its timeline. */
  objects: ObjectStore
  /**
   * The seeded development project the first account to sign up comes to own: set only on the
   * embedded development start-up (no DATABASE_URL), never on a configured database.
   */
  developmentProjectId?: string
  /** The process's key authenticator: a key revoked here is forgotten before the answer, not only when the broadcast comes back. */
  auth: KeyAuthenticator
}
