/**
 * What `svc ingress` runs on INGESTION_PORT: ingestion and the web side on one uWS app. Each side
 * knows only the kernel; this is where they meet. Ingestion's parts, the long polls' WakeHub, the
 * SDK-ping recorder, the web side's ORM and the one key authenticator both sides share (with its
 * revocation watch) are started here, wired into one app, and stopped in turn.
 */
import type { Redis } from 'ioredis'
import type { Config } from '../../shared/config/index.js'
import type { Db } from '../../shared/db/index.js'
import type { ObjectStore } from '../../shared/object-store.js'
import type { Logger } from '../../shared/log.js'
import { KeyAuthenticator, RevocationWatch } from '../../shared/key-auth.js'
import { collectProcessMetrics, scrapeMetrics } from '../../shared/metrics.js'
import { createOrm, type Orm } from '../../shared/db/orm.js'
import type { ChatPlugin, CodehostPlugin } from '../../shared/plugins/types.js'
import { publishWake, type StreamKeys } from '../../shared/redis.js'
import { startIngestion } from '../../services/ingress/index.js'
import { INVESTIGATOR_ENTITIES } from '../../services/investigator/store/entities.js'
import { SdkSeen, WakeHub } from '../../services/web/index.js'
import { SEED_PROJECT_ID } from '../../shared/db/seed.js'
import { createFrontApp } from './app.js'

export interface FrontOptions {
  db: Db
  /** Where uploaded source maps and recording chunks go (the dashboard's replay reads the chunks). */
  objects: ObjectStore
  redis: Redis
  keys: StreamKeys
  log: Logger
  /** Limits, the public base URL and the setup-session settings. */
  config: Pick<Config, 'databaseUrl' | 'limits' | 'setup' | 'baseUrl' | 'dashboardOrigin' | 'redisKeyPrefix' | 'trustedProxyHops' | 'restarts' | 'investigations' | 'ingressMetrics' | 'toolServer' | 'secrets' | 'invitationTtlMs' | 'data'>
  /** Code host and chat integrations; absent ones turn their setup steps into clear refusals. */
  plugins: { codehost: CodehostPlugin | undefined; chat: ChatPlugin | undefined }
  port: number
  host: string
  /**
   * The ORM the web side reads investigations through; the caller keeps it open and closes it.
   * Absent, the front opens its own over db (each ingress thread has its own, as it has its own pool).
   */
  orm?: Orm
  /**
   * What GET /metrics answers (unless config.ingressMetrics is off): by default this process's
   * metrics; an ingress thread passes its ask for the merged metrics of every thread.
   */
  metrics?: () => Promise<string>
  /** How long a key lookup (and the project cap read with it) is trusted; tests shorten it. */
  keyCacheMs?: number
}

export interface Front {
  port: number
  stop(): Promise<void>
}

/** Starts both sides' parts, then listens. */
export async function startFront(options: FrontOptions): Promise<Front> {
  const { db, redis, keys, config } = options
  const log = options.log.child({ service: 'ingress' })
  collectProcessMetrics()
  // One authenticator for both sides: a revocation published by any process empties its cache at once.
  const auth = new KeyAuthenticator(db, { cacheMs: options.keyCacheMs })
  const revocations = new RevocationWatch(redis, keys.keyRevoked, auth)
  await revocations.ready()
  let ingestion: Awaited<ReturnType<typeof startIngestion>>
  try {
    ingestion = await startIngestion({ db, objects: options.objects, redis, keys, log, limits: config.limits, projectEventsPerMinute: config.data.projectEventsPerMinute, auth })
  } catch (error) {
    revocations.close()
    throw error
  }
  let orm: Orm
  try {
    orm = options.orm ?? (await createOrm(db, INVESTIGATOR_ENTITIES))
  } catch (error) {
    ingestion.stop()
    revocations.close()
    throw error
  }
  // Closed on stop only when opened here.
  const closeOrm = async (): Promise<void> => {
    if (!options.orm) await orm.close()
  }
  const hub = new WakeHub(redis)
  const sdkSeen = new SdkSeen(db, redis, keys)
  const setup = { db, redis, keys, log, baseUrl: config.baseUrl, limits: config.setup, codehost: options.plugins.codehost, chat: options.plugins.chat }
  const app = createFrontApp({
    // A browser's ping is the SDK loaded in a page: the setup sessions' app_reporting fact.
    ingest: {
      ...ingestion.routes,
      onSdkPing: (projectId) => sdkSeen.note(projectId),
      // The upload is committed: a setup session held on the project answers sourcemaps_uploaded now.
      onSourceMapStored: (projectId) => void publishWake(redis, keys.wakeProject(projectId)).catch((error: unknown) => log.warn('could not wake setup polls after a source-map upload', { error })),
    },
    web: {
      setup,
      hub,
      dashboard: {
        dashboardOrigin: config.dashboardOrigin,
        secureCookies: (config.dashboardOrigin ?? config.baseUrl).startsWith('https:'),
        redisKeyPrefix: config.redisKeyPrefix,
        // The embedded start-up (npm start): its first account owns the seeded project (README "First run").
        developmentProjectId: config.databaseUrl ? undefined : SEED_PROJECT_ID,
        invitationTtlMs: config.invitationTtlMs,
        dataDefaults: config.data,
      },
      log,
      proxyHops: config.trustedProxyHops,
      orm,
      investigationLeaseMs: config.investigations.leaseMs,
      objects: options.objects,
      auth,
      toolServer: config.toolServer,
      codehostWebhookSecret: config.secrets.codehostWebhookSecret,
    },
    restarts: config.restarts,
    metrics: config.ingressMetrics ? (options.metrics ?? scrapeMetrics) : undefined,
  })
  let port: number
  try {
    port = await app.listen(options.port, options.host)
  } catch (error) {
    ingestion.stop()
    hub.close()
    revocations.close()
    await closeOrm()
    throw error
  }
  log.info('ingress listening', { port, host: options.host })
  return {
    port,
    async stop() {
      await app.close()
      ingestion.stop()
      hub.close()
      revocations.close()
      await closeOrm()
    },
  }
}
