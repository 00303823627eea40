/** A worker process: hosts the configured consumer services, trims their streams, runs the fleet's upkeep sweep and the storage gauges' count, serves /health and /metrics. */
import type { Server } from 'node:http'
import type { Redis } from 'ioredis'
import type { EmbeddingsConfig, InvestigationLimits, LogLevel, RecordingSettings, ServiceName, StreamTiming } from '../../shared/config/index.js'
import type { FrictionLimits } from '../../shared/config/friction.js'
import type { Db } from '../../shared/db/index.js'
import type { ObjectStore } from '../../shared/object-store.js'
import type { Logger } from '../../shared/log.js'
import { collectProcessMetrics } from '../../shared/metrics.js'
import type { StreamKeys } from '../../shared/redis.js'
import type { HostedService } from '../../shared/service.js'
import { ensureGroup, StreamTrimmer } from '../../shared/streams/index.js'
import { watchStreamDepths } from '../../shared/streams/metrics.js'
import { streamTopology } from '../../shared/topology.js'
import { createOrm, type Orm } from '../../shared/db/orm.js'
import type { DigestSettings } from '../../shared/config/digest.js'
import type { ChatPlugin } from '../../shared/plugins/types.js'
import { alertConfig, type AlertSettings } from '../../shared/config/alerts.js'
import { ALERTER_ENTITIES, createAlerter } from '../alerter/index.js'
import { createDigester, DIGESTER_ENTITIES, type Clock } from '../digester/index.js'
import { createGrouper } from '../grouper/index.js'
import { createInvestigator, INVESTIGATOR_ENTITIES, type InvestigatorDeps, type Tools } from '../investigator/index.js'
import { createMatcher, MATCHER_ENTITIES } from '../matcher/index.js'
import { createRecorder } from '../recorder/index.js'
import { startHealthServer } from './health.js'
import { dataConfig, type DataSettings } from '../../shared/config/data.js'
import { StorageGauges } from './storage-gauges.js'
import { upkeepSweeper } from './upkeep.js'

export interface WorkerDeps {
  db: Db
  objects: ObjectStore
  redis: Redis
  keys: StreamKeys
  log: Logger
  services: readonly ServiceName[]
  timing: StreamTiming
  healthPort: number
  healthHost?: string
  /** How often a supervisor restarted this process; shown by /health. */
  restarts?: number
  /** What the investigator may spend, and the plugins it works with (none: every run stops saying so). */
  investigations?: InvestigationLimits
  tools?: Tools
  /** The fix stage's sandbox, template and command limits (none: every fix stops saying so). */
  fixes?: InvestigatorDeps['fixes']
  /** How long recordings are kept and when one closes (config.recordings); the recorder needs them. */
  recordings?: RecordingSettings
  /** The matcher's caps and what its embedder is made from (config.friction, config.embeddings, config.logLevel). */
  matcher?: { limits: FrictionLimits; embeddings: { readonly embeddings: EmbeddingsConfig; readonly logLevel: LogLevel } }
  /** The digester's settings, chat plugin and the dashboard's address (config.digest, plugins.chat, config.baseUrl); its model is tools.model. */
  digests?: { settings: DigestSettings; chat: ChatPlugin | undefined; baseUrl: string; clock?: Clock }
  /** Data limits (config.data): the grouper's per-issue sampling and retention pass, the upkeep sweep's cleanup ages. Absent: the defaults. */
  data?: DataSettings
  /** The alerter's settings (config.alerts); it posts through the digest's chat plugin to the same dashboard address. */
  alerts?: AlertSettings
  /**
   * The ORM the investigator and the matcher work through (WORKER_ENTITIES); the caller keeps it open and closes it (the
   * all-in-one process shares one with the web side). Absent, the worker opens its own.
   */
  orm?: Orm
}

export interface Worker {
  services: readonly HostedService[]
  /** Port /health listens on (useful when 0 was asked for). */
  healthPort: number
  stop(): Promise<void>
}

const FACTORIES: Record<ServiceName, (deps: WorkerDeps, orm: () => Orm) => HostedService> = {
  grouper: (deps) => createGrouper(deps),
  investigator: (deps, orm) => {
    if (!deps.investigations) throw new Error('the investigator needs its limits (config.investigations)')
    const fixes = deps.fixes ?? { sandboxes: undefined, template: undefined, evidenceLimits: deps.investigations.sandbox, publicUrl: '' }
    return createInvestigator({ ...deps, orm: orm(), limits: deps.investigations, tools: deps.tools ?? { model: undefined, codehost: undefined }, fixes })
  },
  recorder: (deps) => {
    if (!deps.recordings) throw new Error('the recorder needs its settings (config.recordings)')
    return createRecorder({ ...deps, settings: deps.recordings })
  },
  matcher: (deps, orm) => {
    if (!deps.matcher) throw new Error('the matcher needs its caps and embeddings settings (config.friction, config.embeddings)')
    return createMatcher({ ...deps, orm: orm(), limits: deps.matcher.limits, embeddings: deps.matcher.embeddings })
  },
  digester: (deps, orm) => {
    if (!deps.digests) throw new Error('the digester needs its settings and chat plugin (config.digest, plugins.chat)')
    return createDigester({ ...deps, orm: orm(), settings: deps.digests.settings, chat: deps.digests.chat, model: deps.tools?.model, baseUrl: deps.digests.baseUrl, ...(deps.digests.clock ? { clock: deps.digests.clock } : {}) })
  },
  alerter: (deps, orm) => {
    if (!deps.digests) throw new Error('the alerter needs the chat plugin and the dashboard\'s address (plugins.chat, config.baseUrl, given as digests)')
    // Without its own settings (a caller written before the alerter): the defaults, as an unset environment gives them.
    return createAlerter({ ...deps, orm: orm(), settings: deps.alerts ?? alertConfig({}), chat: deps.digests.chat, baseUrl: deps.digests.baseUrl })
  },
}

/** The entities of the actors that own domain tables: an ORM given to the worker must know them all. */
export const WORKER_ENTITIES = [...INVESTIGATOR_ENTITIES, ...MATCHER_ENTITIES, ...DIGESTER_ENTITIES, ...ALERTER_ENTITIES]

/** Starts the services and the health endpoint. */
export async function startWorker(deps: WorkerDeps): Promise<Worker> {
  for (const { stream, groups } of streamTopology(deps.keys)) {
    for (const group of groups) await ensureGroup(deps.redis, stream, group)
  }
  // The ORM serves the actors that own domain tables (the investigator, the matcher, the digester, the alerter); opened only for them.
  const needsOrm = (['investigator', 'matcher', 'digester', 'alerter'] as const).some((name) => deps.services.includes(name))
  const ownOrm = deps.orm === undefined && needsOrm ? await createOrm(deps.db, WORKER_ENTITIES) : undefined
  const orm = deps.orm ?? ownOrm
  const services = deps.services.map((name) => FACTORIES[name](deps, () => orm!))
  for (const service of services) await service.start()
  const trimmer = new StreamTrimmer({ redis: deps.redis, streams: streamTopology(deps.keys).map((s) => s.stream) })
  trimmer.on('error', (error: unknown) => deps.log.warn('stream trim failed', { error }))
  trimmer.start()
  // Fleet-wide, under one lock, whichever services this worker hosts (docs/storage.md).
  const upkeep = upkeepSweeper({ db: deps.db, redis: deps.redis, keys: deps.keys, data: deps.data ?? dataConfig({}) })
  upkeep.on('error', (error: unknown) => deps.log.warn('upkeep sweep failed', { error }))
  upkeep.start()
  const storage = new StorageGauges({ db: deps.db, redis: deps.redis, keys: deps.keys })
  // Once per fleet per interval, under one lock; this worker serves the fleet's last count (docs/metrics.md "Storage").
  // An outage is logged once by the connection's watch; the last figures stay served.
  storage.on('error', (error: unknown) => deps.log.warn('storage gauges not counted or not read', { error }))
  storage.start()
  collectProcessMetrics()
  // Every group's depth, whichever services this worker hosts: a fleet-wide fact any worker can report.
  const unwatch = watchStreamDepths(deps.redis, streamTopology(deps.keys))
  const server: Server = await startHealthServer(services, deps.healthPort, deps.healthHost, deps.restarts)
  const address = server.address()
  deps.log.info('worker started', { services: deps.services, health: address })
  return {
    services,
    healthPort: typeof address === 'object' && address ? address.port : deps.healthPort,
    async stop() {
      server.close()
      unwatch()
      trimmer.stop()
      await Promise.all([upkeep.stop(), storage.stop()])
      await Promise.all(services.map((s) => s.stop()))
      await ownOrm?.close()
    },
  }
}
