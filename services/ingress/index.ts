/**
 * Starts ingestion's parts: the stream groups, the events queue, back-pressure and the recording
 * intake; key authentication is the process's, handed in. Its routes (routes.ts) go on the app the process composes
 * (bin/front/).
 */
import type { Redis } from 'ioredis'
import type { Config } from '../../shared/config/index.js'
import type { Db } from '../../shared/db/index.js'
import type { ObjectStore } from '../../shared/object-store.js'
import type { Logger } from '../../shared/log.js'
import { watchConnection, type StreamKeys } from '../../shared/redis.js'
// The groups module alone: the ingress runs no consumer, so it loads (and lists) none of its metrics.
import { ensureGroup } from '../../shared/streams/groups.js'
import { GROUPS, streamTopology } from '../../shared/topology.js'
import { BacklogMonitor } from './backlog-monitor.js'
import { EventQueue } from './event-queue.js'
import type { KeyAuthenticator } from '../../shared/key-auth.js'
import { RecordingIntake } from './recording-intake.js'
import type { IngestRouteDeps } from './routes.js'

export { registerIngestRoutes, type IngestRouteDeps } from './routes.js'

export interface IngestionOptions {
  db: Db
  /** Where uploaded source maps and recording chunks go. */
  objects: ObjectStore
  redis: Redis
  keys: StreamKeys
  log: Logger
  limits: Config['limits']
  /** A project's intake cap when its settings name none (config.data.projectEventsPerMinute); 0: none. */
  projectEventsPerMinute: number
  /** The process's key authenticator, shared with the web side (one cache, one revocation watch). */
  auth: KeyAuthenticator
}

export interface Ingestion {
  /** What registerIngestRoutes needs, but for the parts the composing process adds. */
  routes: Omit<IngestRouteDeps, 'onSdkPing' | 'onSourceMapStored' | 'track' | 'inFlight'>
  /** Stops the backlog monitor and closes the queue's connection; call after the app closed. */
  stop(): void
}

/** Creates the stream groups, connects the events queue and starts the backlog monitor. */
export async function startIngestion(options: IngestionOptions): Promise<Ingestion> {
  const { log, limits } = options
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
  const queue = new EventQueue(queueRedis, options.keys, { perKey: limits.eventsPerKeyPerMinute, perProjectDefault: options.projectEventsPerMinute })
  // Recording chunks share the queue's connection, for the same reason: refused at once while Redis is away.
  const intake = new RecordingIntake({
    redis: queueRedis,
    keys: options.keys,
    objects: options.objects,
    db: options.db,
    log,
    chunksPerMinute: limits.recordingChunksPerMinute,
    bytesPerMinute: limits.recordingBytesPerMinute,
  })
  const backlog = new BacklogMonitor(options.redis, options.keys.events, GROUPS.grouper, limits.eventsBacklogLimit, () => queue.meanEventsPerEntry)
  backlog.start()
  return {
    routes: {
      auth: options.auth,
      queue,
      backlog,
      log,
      maxEventBytes: limits.maxEventBytes,
      uploads: { db: options.db, objects: options.objects, maxBytes: limits.maxSourceMapBytes },
      recordings: { intake, maxBytes: limits.maxRecordingChunkBytes },
    },
    stop() {
      backlog.stop()
      queueRedis.disconnect()
    },
  }
}
