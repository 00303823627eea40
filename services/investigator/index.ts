/**
 * The investigator actor: admission on the issue-changes stream, investigations on the
 * investigations stream (one at a time per consumer loop; the fleet-wide cap is a Redis semaphore),
 * and the lease sweeper. Job state lives in its own tables (MikroORM); Redis carries the dispatch.
 */
import { hostname } from 'node:os'
import type { Redis } from 'ioredis'
import type { InvestigationLimits, StreamTiming } from '../../shared/config.js'
import { isDatabaseOutage, type Db } from '../../shared/db.js'
import type { Logger } from '../../shared/log.js'
import type { Orm } from '../../shared/orm.js'
import type { StreamKeys } from '../../shared/redis.js'
import type { HostedService } from '../../shared/service.js'
import { groupActivity, queueDepth, StreamConsumer, type StreamEntry } from '../../shared/streams/index.js'
import { GROUPS } from '../../shared/topology.js'
import { changesOf } from '../../shared/issue-changes.js'
import { admit } from './admission.js'
import type { Tools } from './investigate.js'
import { runInvestigation } from './run.js'
import { InvestigationSlots } from './slots.js'
import { usageByProjectToday } from './store/usage.js'
import { LeaseSweeper } from './sweeper.js'

export interface InvestigatorDeps {
  db: Db
  orm: Orm
  redis: Redis
  keys: StreamKeys
  log: Logger
  timing: StreamTiming
  limits: InvestigationLimits
  tools: Tools
}

/** Creates the investigator service (not yet started). */
export function createInvestigator(deps: InvestigatorDeps): HostedService {
  const log = deps.log.child({ service: 'investigator' })
  const name = `${hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
  const slots = new InvestigationSlots(deps.redis, deps.keys.investigationSlots, deps.limits.maxConcurrent, deps.limits.leaseMs)
  const sweeper = new LeaseSweeper({ orm: deps.orm, redis: deps.redis, keys: deps.keys, leaseMs: deps.limits.leaseMs, maxAttempts: deps.timing.maxAttempts })
  sweeper.on('error', (error: unknown) => log.warn('lease sweep failed', { error }))
  let active = 0
  // Aborted when the service stops: a run hands its investigation back rather than holding shutdown.
  let stopping = new AbortController()
  const common = {
    redis: deps.redis,
    leaseMs: deps.timing.leaseMs,
    retryBaseMs: deps.timing.retryBaseMs,
    maxAttempts: deps.timing.maxAttempts,
    isOutage: isDatabaseOutage,
    untilRecovered: (error: unknown) => deps.db.outage.untilBack(error),
  }
  const admission = new StreamConsumer({
    ...common,
    stream: deps.keys.issueChanges,
    group: GROUPS.admission,
    consumer: `${name}-admission`,
    batchSize: 50,
    handler: async (entries: StreamEntry[]) => {
      const started = await admit({ db: deps.db, orm: deps.orm, redis: deps.redis, keys: deps.keys, limits: deps.limits }, entries.flatMap((entry) => changesOf(entry.fields)))
      if (started.length > 0) log.info('investigations queued', { investigations: started })
    },
  })
  const runners = Array.from({ length: Math.max(1, deps.timing.consumersPerProcess) }, (_, i) => {
    const runner = new StreamConsumer({
      ...common,
      stream: deps.keys.investigations,
      group: GROUPS.investigator,
      consumer: `${name}-${i}`,
      batchSize: 1,
      handler: async ([entry], { signal }) => {
        active++
        try {
          const run = { db: deps.db, orm: deps.orm, tools: deps.tools, slots, limits: deps.limits, log, holder: `${name}-${i}`, stopping: stopping.signal }
          await runInvestigation(run, entry!.fields.investigation ?? '', entry!.attempt, deps.timing.maxAttempts, AbortSignal.any([signal, stopping.signal]))
        } finally {
          active--
        }
      },
    })
    runner.on('error', (error: unknown) => log.error('investigator consumer error', { error }))
    return runner
  })
  admission.on('error', (error: unknown) => log.error('admission consumer error', { error }))
  const consumers = [admission, ...runners]
  return {
    name: 'investigator',
    start: async () => {
      stopping = new AbortController()
      for (const consumer of consumers) await consumer.start()
      sweeper.start()
    },
    stop: async () => {
      stopping.abort()
      await sweeper.stop()
      await Promise.all(consumers.map((consumer) => consumer.stop()))
    },
    depth: async () => {
      const [a, b] = await Promise.all([queueDepth(deps.redis, deps.keys.issueChanges, GROUPS.admission), queueDepth(deps.redis, deps.keys.investigations, GROUPS.investigator)])
      return { eligible: a.eligible + b.eligible, heldBack: a.heldBack + b.heldBack, deadLettered: a.deadLettered + b.deadLettered }
    },
    // A runner inside a long investigation is working, not stuck: it counts as progressing.
    lastProgressAt: () => (active > 0 ? Date.now() : Math.min(...consumers.map((consumer) => consumer.lastProgressAt))),
    fleetIdleMs: async () => {
      if (active > 0) return 0
      const [a, b] = await Promise.all([groupActivity(deps.redis, deps.keys.issueChanges, GROUPS.admission), groupActivity(deps.redis, deps.keys.investigations, GROUPS.investigator)])
      return Math.min(a.minIdleMs, b.minIdleMs)
    },
    waitingFor: () => {
      const since = deps.db.outage.downSince
      return since === undefined ? undefined : { what: 'database', since }
    },
    details: async () => {
      const usage = await usageByProjectToday(deps.orm)
      const paused = deps.limits.maxConcurrent === 0 ? ' (paused: INVESTIGATION_MAX_CONCURRENT=0)' : ''
      return [
        `investigations: running=${await slots.running()} max_concurrent=${deps.limits.maxConcurrent}${paused} model=${deps.tools.model?.label ?? 'none (MODEL_API_KEY unset)'}`,
        ...[...usage].map(([project, tokens]) => `investigation_budget ${project}: used=${tokens} daily_tokens=${deps.limits.projectDailyTokens}`),
      ]
    },
  }
}
