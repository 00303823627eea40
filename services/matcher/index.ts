/**
 * The matcher actor (docs/known-problems.md, "The matcher actor"), built on the job runtime
 * (shared/jobs/): three kinds of leased job on friction_jobs (jobs.ts: scan, match, confirm), read
 * from stream:friction one at a time per consumer loop under two fleet-wide caps (scan and match
 * share FRICTION_MATCH_MAX_CONCURRENT, confirm has FRICTION_CONFIRM_MAX_CONCURRENT; 0 pauses), and
 * one periodic sweep for the fleet: scan the closed recordings not scanned yet, dispatch the due
 * jobs never dispatched (a backfill's, spaced by not_before), and the lapsed-lease sweep. The
 * embedder is made when the service starts (its pool proves it loads) and closed when it stops.
 */
import { hostname } from 'node:os'
import type { Redis } from 'ioredis'
import type { EmbeddingsConfig, LogLevel, StreamTiming } from '../../shared/config.js'
import type { FrictionLimits } from '../../shared/config-friction.js'
import { isDatabaseOutage, type Db } from '../../shared/db.js'
import { FleetSlots, JobHost, PeriodicSweeper, runJob, sweepLapsed, type RunnerDeps, type SweepPass } from '../../shared/jobs/index.js'
import type { Logger } from '../../shared/log.js'
import type { ObjectStore } from '../../shared/object-store.js'
import type { Orm } from '../../shared/orm.js'
import type { StreamKeys } from '../../shared/redis.js'
import { waitingForDatabase, type HostedService } from '../../shared/service.js'
import { StreamConsumer } from '../../shared/streams/index.js'
import { GROUPS } from '../../shared/topology.js'
import { dispatchDue, dispatchJobs, FRICTION_JOB_KINDS, jobOfEntry, type FrictionJobKind } from './dispatch.js'
import { createEmbedder, type Embedder } from './embeddings/index.js'
import { matcherHealth } from './health.js'
import { frictionJobKind } from './jobs.js'
import { scanDueRecordings } from './scan-due.js'

/** The matcher's entities, for the process that opens the ORM it works through. */
export { MATCHER_ENTITIES } from './store/entities.js'

export interface MatcherDeps {
  db: Db
  orm: Orm
  objects: ObjectStore
  redis: Redis
  keys: StreamKeys
  log: Logger
  timing: StreamTiming
  limits: FrictionLimits
  /** What createEmbedder reads (config.embeddings, config.logLevel). */
  embeddings: { readonly embeddings: EmbeddingsConfig; readonly logLevel: LogLevel }
}

/** The matcher service, with its sweep on demand (tests, and a worker asked to sweep at once). */
export interface Matcher extends HostedService {
  sweepNow(): Promise<void>
}

/** Recordings one sweep scans at most: a pass stays well inside the sweep's interval; the rest wait for the next. */
const SCANS_PER_PASS = 50
/** Never-dispatched due jobs one sweep dispatches at most (a backfill's rate is far below this per interval). */
const DUE_PER_PASS = 500

/** Creates the matcher service (not yet started). */
export function createMatcher(deps: MatcherDeps): Matcher {
  const log = deps.log.child({ service: 'matcher' })
  const name = `${hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
  const leaseMs = deps.timing.leaseMs
  const host = new JobHost()
  let embedder: Embedder | undefined
  const slots = {
    match: new FleetSlots(deps.redis, deps.keys.frictionMatchSlots, deps.limits.matchMaxConcurrent, leaseMs),
    confirm: new FleetSlots(deps.redis, deps.keys.frictionConfirmSlots, deps.limits.confirmMaxConcurrent, leaseMs),
  }
  const slotsOf = (kind: FrictionJobKind): FleetSlots => (kind === 'confirm' ? slots.confirm : slots.match)
  const jobDeps = { ...deps, log, leaseMs, embedder: () => embedder }
  const kinds = { scan: frictionJobKind('scan', jobDeps), match: frictionJobKind('match', jobDeps), confirm: frictionJobKind('confirm', jobDeps) }
  // A paused kind (its cap 0) is neither started nor dispatched here: its jobs stay pending, nothing lost.
  const running = FRICTION_JOB_KINDS.filter((kind) => slotsOf(kind).max > 0)
  const lapsed = { orm: deps.orm, leaseMs, maxAttempts: deps.timing.maxAttempts }
  const scanPass = async (): Promise<void> => {
    // A worker whose operator turned embeddings off matches its live findings without them (docs: "none").
    const outcome = await scanDueRecordings({ db: deps.db, objects: deps.objects, log }, SCANS_PER_PASS, host.stopping, { allowMissingEmbeddings: embedder === undefined })
    await dispatchJobs(deps.db, deps.redis, deps.keys, outcome.matchJobs, leaseMs)
    if (outcome.scanned > 0) log.info('recordings scanned for friction', { scanned: outcome.scanned, findings: outcome.findings.length, failed: outcome.failed })
  }
  const passes: SweepPass[] = [
    ...(running.includes('match') ? [{ name: 'scan closed recordings', run: () => scanPass() }] : []),
    { name: 'dispatch due jobs', run: () => dispatchDue(deps.db, deps.redis, deps.keys, running, leaseMs, DUE_PER_PASS) },
    ...running.map((kind) => ({ name: `lapsed ${kind} jobs`, run: () => sweepLapsed(kinds[kind], lapsed) })),
  ]
  const sweeper = new PeriodicSweeper({ redis: deps.redis, lockKey: `${deps.keys.frictionMatchSlots}:sweep`, everyMs: leaseMs / 2, passes })
  sweeper.on('error', (error: unknown) => log.warn('matcher sweep failed', { error }))

  const runner = (holder: string): RunnerDeps => ({ orm: deps.orm, slots: slots.match, leaseMs, log, holder, stopping: host.stopping })
  const consumers = Array.from({ length: Math.max(1, deps.timing.consumersPerProcess) }, (_, i) => {
    const holder = `${name}-${i}`
    const reader = new StreamConsumer({
      redis: deps.redis,
      stream: deps.keys.friction,
      group: GROUPS.matcher,
      consumer: holder,
      leaseMs: deps.timing.leaseMs,
      retryBaseMs: deps.timing.retryBaseMs,
      maxAttempts: deps.timing.maxAttempts,
      isOutage: isDatabaseOutage,
      untilRecovered: (error: unknown) => deps.db.outage.untilBack(error),
      batchSize: 1,
      rerunLoneEntry: false,
      handler: ([entry], { signal }) => {
        const job = jobOfEntry(entry!)
        // A paused kind's entry is let go: its row stays pending, and the sweep dispatches it once a worker runs that kind.
        if (!job || !running.includes(job.kind)) return Promise.resolve()
        const delivery = { id: job.id, attempt: entry!.attempt, maxAttempts: deps.timing.maxAttempts, signal: AbortSignal.any([signal, host.stopping]) }
        return host.track(() => runJob(kinds[job.kind], { ...runner(holder), slots: slotsOf(job.kind) }, delivery))
      },
    })
    reader.on('error', (error: unknown) => log.error('matcher consumer error', { error }))
    return { consumer: reader, stream: deps.keys.friction, group: GROUPS.matcher }
  })

  const service = host.service({
    name: 'matcher',
    redis: deps.redis,
    consumers,
    sweeper,
    waitingFor: waitingForDatabase(deps.db),
    details: () => matcherHealth({ db: deps.db, limits: deps.limits, slots, model: embedder?.model }),
  })
  return {
    ...service,
    async start() {
      embedder = await createEmbedder(deps.embeddings, log)
      await service.start()
    },
    async stop() {
      await service.stop()
      await embedder?.close()
      embedder = undefined
    },
    sweepNow: () => sweeper.sweepNow(),
  }
}
