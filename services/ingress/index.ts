/** Starts the ingress: key authentication, the events queue, back-pressure and the HTTP app. */
import type { Redis } from 'ioredis'
import type { Config } from '../../shared/config.js'
import type { Db } from '../../shared/db.js'
import type { ObjectStore } from '../../shared/object-store.js'
import type { Logger } from '../../shared/log.js'
import type { ChatPlugin, CodehostPlugin } from '../../shared/plugins/types.js'
import { watchConnection, type StreamKeys } from '../../shared/redis.js'
import { ensureGroup } from '../../shared/streams/index.js'
import { GROUPS, streamTopology } from '../../shared/topology.js'
import { createIngressApp } from './app.js'
import { BacklogMonitor } from './backlog-monitor.js'
import { EventQueue } from './event-queue.js'
import { KeyAuthenticator } from './key-auth.js'
import { SdkSeen } from '../web/sdk-seen.js'
import { WakeHub } from '../web/setup/wake-hub.js'

export interface IngressOptions {
  db: Db
  /** Where uploaded source maps go. */
  objects: ObjectStore
  redis: Redis
  keys: StreamKeys
  log: Logger
  /** Limits, the public base URL and the setup-session settings. */
  config: Pick<Config, 'limits' | 'setup' | 'baseUrl' | 'dashboardOrigin' | 'redisKeyPrefix' | 'trustedProxyHops' | 'restarts'>
  /** Code host and chat integrations; absent ones turn their setup steps into clear refusals. */
  plugins: { codehost: CodehostPlugin | undefined; chat: ChatPlugin | undefined }
  port: number
  host: string
}

export interface Ingress {
  port: number
  stop(): Promise<void>
}

/** Creates the stream groups, then listens. */
export async function startIngress(options: IngressOptions): Promise<Ingress> {
  const log = options.log.child({ service: 'ingress' })
  // Groups exist before the first event, so nothing is trimmed before its readers start.
  for (const { stream, groups } of streamTopology(options.keys)) {
    for (const group of groups) await ensureGroup(options.redis, stream, group)
  }
  // The queue batches by itself: its own connection skips ioredis's auto-pipelining layer, which
  // only added work on top of one call per batch. While Redis is away, an event is refused at once
  // (503, the SDK sends it again) instead of held: held requests would pile up in memory for the
  // length of the outage, and a command resent after its answer was lost could store an event the
  // client was told failed.
  const queueRedis = watchConnection(
    options.redis.duplicate({ enableAutoPipelining: false, enableOfflineQueue: false, maxRetriesPerRequest: 0, autoResendUnfulfilledCommands: false, lazyConnect: true }),
    log.child({ connection: 'events queue' }),
  )
  await queueRedis.connect()
  const { limits } = options.config
  const queue = new EventQueue(queueRedis, options.keys, limits.eventsPerKeyPerMinute)
  const backlog = new BacklogMonitor(options.redis, options.keys.events, GROUPS.grouper, limits.eventsBacklogLimit, () => queue.meanEventsPerEntry)
  backlog.start()
  const hub = new WakeHub(options.redis)
  const app = createIngressApp({
    auth: new KeyAuthenticator(options.db),
    queue,
    backlog,
    log,
    maxEventBytes: limits.maxEventBytes,
    uploads: { db: options.db, objects: options.objects, maxBytes: limits.maxSourceMapBytes },
    setup: {
      db: options.db,
      redis: options.redis,
      keys: options.keys,
      log,
      baseUrl: options.config.baseUrl,
      limits: options.config.setup,
      codehost: options.plugins.codehost,
      chat: options.plugins.chat,
    },
    hub,
    dashboard: {
      dashboardOrigin: options.config.dashboardOrigin,
      secureCookies: (options.config.dashboardOrigin ?? options.config.baseUrl).startsWith('https:'),
      redisKeyPrefix: options.config.redisKeyPrefix,
    },
    proxyHops: options.config.trustedProxyHops,
    restarts: options.config.restarts,
    sdkSeen: new SdkSeen(options.db, options.redis, options.keys),
  })
  let port: number
  try {
    port = await app.listen(options.port, options.host)
  } catch (error) {
    backlog.stop()
    hub.close()
    queueRedis.disconnect()
    throw error
  }
  log.info('ingress listening', { port, host: options.host })
  return {
    port,
    async stop() {
      await app.close()
      backlog.stop()
      hub.close()
      queueRedis.disconnect()
    },
  }
}
