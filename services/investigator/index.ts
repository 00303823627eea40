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
import type { SandboxPlugin } from '../../shared/plugins/sandbox-types.js'
import type { HostedService } from '../../shared/service.js'
import { groupActivity, queueDepth, StreamConsumer, type StreamEntry } from '../../shared/streams/index.js'
import { GROUPS } from '../../shared/topology.js'
import { changesOf } from '../../shared/issue-changes.js'
import { admit } from './admission.js'
import { AppCodeCheck } from './app-code.js'
import { dispatchFix } from './dispatch.js'
import type { EvidenceLimits } from './fix/evidence.js'
import { runFix } from './fix/run.js'
import type { Tools } from './investigate.js'
import { countStopsFrom, watchSlots } from './metrics.js'
import { runInvestigation } from './run.js'
import { STOPS } from './stops.js'
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
  /** The fix stage: the sandbox plugin and template (SVC_SANDBOX_JAVASCRIPT_TEMPLATE), command limits, and the dashboard's address. */
  fixes: { sandboxes: SandboxPlugin | undefined; template: string | undefined; evidenceLimits: EvidenceLimits; publicUrl: string }
}

/** Creates the investigator service (not yet started). */
export function createInvestigator(deps: InvestigatorDeps): HostedService {
  const log = deps.log.child({ service: 'investigator' })
  countStopsFrom(Object.keys(STOPS))
  const name = `${hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
  const slots = new InvestigationSlots(deps.redis, deps.keys.investigationSlots, deps.limits.maxConcurrent, deps.limits.leaseMs)
  const sweepOptions = { orm: deps.orm, redis: deps.redis, keys: deps.keys, leaseMs: deps.limits.leaseMs, maxAttempts: deps.timing.maxAttempts }
  const sweeper = new LeaseSweeper({ ...sweepOptions, fixes: { ...sweepOptions, db: deps.db, codehost: deps.tools.codehost } })
  sweeper.on('error', (error: unknown) => log.warn('lease sweep failed', { error }))
  const appCode = new AppCodeCheck({ db: deps.db, codehost: deps.tools.codehost, log })
  let active = 0
  let unwatchSlots = (): void => {}
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
      const started = await admit({ db: deps.db, orm: deps.orm, redis: deps.redis, keys: deps.keys, limits: deps.limits, appCode }, entries.flatMap((entry) => changesOf(entry.fields)))
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
      // Each run of the handler claims an attempt: a failed one waits for the stream's retry.
      rerunLoneEntry: false,
      handler: async ([entry], { signal }) => {
        active++
        try {
          const run = { db: deps.db, orm: deps.orm, tools: deps.tools, slots, limits: deps.limits, log, holder: `${name}-${i}`, stopping: stopping.signal, dispatchFix: (id: string) => dispatchFix(deps.redis, deps.keys, id) }
          await runInvestigation(run, entry!.fields.investigation ?? '', entry!.attempt, deps.timing.maxAttempts, AbortSignal.any([signal, stopping.signal]))
        } finally {
          active--
        }
      },
    })
    runner.on('error', (error: unknown) => log.error('investigator consumer error', { error }))
    return runner
  })
  const fixer = new StreamConsumer({
    ...common,
    stream: deps.keys.fixes,
    group: GROUPS.fixer,
    consumer: `${name}-fixer`,
    batchSize: 1,
    rerunLoneEntry: false,
    handler: async ([entry], { signal }) => {
      active++
      try {
        const run = { db: deps.db, orm: deps.orm, tools: deps.tools, ...deps.fixes, slots, limits: deps.limits, log, holder: `${name}-fixer`, stopping: stopping.signal }
        await runFix(run, entry!.fields.fix ?? '', entry!.attempt, deps.timing.maxAttempts, AbortSignal.any([signal, stopping.signal]))
      } finally {
        active--
      }
    },
  })
  fixer.on('error', (error: unknown) => log.error('fixer consumer error', { error }))
  admission.on('error', (error: unknown) => log.error('admission consumer error', { error }))
  const consumers = [admission, ...runners, fixer]
  return {
    name: 'investigator',
    start: async () => {
      stopping = new AbortController()
      for (const consumer of consumers) await consumer.start()
      sweeper.start()
      unwatchSlots = watchSlots(slots)
    },
    stop: async () => {
      stopping.abort()
      unwatchSlots()
      await sweeper.stop()
      await Promise.all(consumers.map((consumer) => consumer.stop()))
    },
    depth: async () => {
      const depths = await Promise.all([queueDepth(deps.redis, deps.keys.issueChanges, GROUPS.admission), queueDepth(deps.redis, deps.keys.investigations, GROUPS.investigator), queueDepth(deps.redis, deps.keys.fixes, GROUPS.fixer)])
      return { eligible: sum(depths, 'eligible'), heldBack: sum(depths, 'heldBack'), deadLettered: sum(depths, 'deadLettered') }
    },
    // A runner inside a long investigation is working, not stuck: it counts as progressing.
    lastProgressAt: () => (active > 0 ? Date.now() : Math.min(...consumers.map((consumer) => consumer.lastProgressAt))),
    fleetIdleMs: async () => {
      if (active > 0) return 0
      const groups = await Promise.all([groupActivity(deps.redis, deps.keys.issueChanges, GROUPS.admission), groupActivity(deps.redis, deps.keys.investigations, GROUPS.investigator), groupActivity(deps.redis, deps.keys.fixes, GROUPS.fixer)])
      return Math.min(...groups.map((group) => group.minIdleMs))
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
        `fixes: sandbox=${deps.fixes.sandboxes?.label ?? 'none'} template=${deps.fixes.template ? 'set' : 'none (SVC_SANDBOX_JAVASCRIPT_TEMPLATE unset: fixes stop with sandbox_template_missing)'}`,
        ...[...usage].map(([project, tokens]) => `investigation_budget ${project}: used=${tokens} daily_tokens=${deps.limits.projectDailyTokens}`),
      ]
    },
  }
}

function sum<K extends string>(rows: Array<Record<K, number>>, key: K): number {
  return rows.reduce((total, row) => total + row[key], 0)
}
