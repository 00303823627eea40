/** Starts the ingress: key authentication, the events queue, back-pressure and the HTTP app. */
import type { Redis } from 'ioredis'
import type { Limits } from '../../shared/config.js'
import type { Db } from '../../shared/db.js'
import type { ObjectStore } from '../../shared/object-store.js'
import type { Logger } from '../../shared/log.js'
import type { StreamKeys } from '../../shared/redis.js'
import { ensureGroup } from '../../shared/streams/index.js'
import { GROUPS, streamTopology } from '../../shared/topology.js'
import { createIngressApp } from './app.js'
import { BacklogMonitor } from './backlog-monitor.js'
import { EventQueue } from './event-queue.js'
import { KeyAuthenticator } from './key-auth.js'

export interface IngressOptions {
  db: Db
  /** Where uploaded source maps go. */
  objects: ObjectStore
  redis: Redis
  keys: StreamKeys
  log: Logger
  limits: Limits
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
  // only added work on top of one call per batch.
  const queueRedis = options.redis.duplicate({ enableAutoPipelining: false })
  const backlog = new BacklogMonitor(options.redis, options.keys.events, GROUPS.grouper, options.limits.eventsBacklogLimit)
  backlog.start()
  const app = createIngressApp({
    auth: new KeyAuthenticator(options.db),
    queue: new EventQueue(queueRedis, options.keys, options.limits.eventsPerKeyPerMinute),
    backlog,
    log,
    maxEventBytes: options.limits.maxEventBytes,
    uploads: { db: options.db, objects: options.objects, maxBytes: options.limits.maxSourceMapBytes },
  })
  let port: number
  try {
    port = await app.listen(options.port, options.host)
  } catch (error) {
    backlog.stop()
    queueRedis.disconnect()
    throw error
  }
  log.info('ingress listening', { port, host: options.host })
  return {
    port,
    async stop() {
      await app.close()
      backlog.stop()
      queueRedis.disconnect()
    },
  }
}
