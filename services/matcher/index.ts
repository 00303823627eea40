/**
 * The matcher actor (docs/known-problems.md, "The matcher actor"), built on the job runtime
 * (shared/jobs/): three kinds of leased job on friction_jobs (jobs.ts: scan, match, confirm), read
 * from stream:friction one at a time per consumer loop under two fleet-wide caps (scan and match
 * share FRICTION_MATCH_MAX_CONCURRENT, confirm has FRICTION_CONFIRM_MAX_CONCURRENT; 0 pauses), and
 * one periodic sweep for the fleet: scan the closed recordings not scanned yet, dispatch the due
 * jobs never dispatched (a backfill's, spaced by not_before), and the lapsed-lease sweep. The
 * embedder is made when the service starts (its pool proves it loads) and closed when it stops.
 */
import type { EmbeddingsConfig, LogLevel } from '../../shared/config/index.js'
import type { FrictionLimits } from '../../shared/config/friction.js'
import { consumeJobs, dispatchDueRows, FleetSlots, JobHost, leasedKind, PeriodicSweeper, sweepLapsed, type SweepPass, type JobActorDeps } from '../../shared/jobs/index.js'
import type { ObjectStore } from '../../shared/object-store.js'
import { waitingForDatabase, type HostedService } from '../../shared/service.js'
import { GROUPS } from '../../shared/topology.js'
import { dispatchJobs, FRICTION_ENTRIES, FRICTION_JOB_KINDS, frictionDue, type FrictionJobKind } from './dispatch.js'
import { createEmbedder, type Embedder } from './embeddings/index.js'
import { matcherHealth } from './health.js'
import { frictionJobKind } from './jobs.js'
import { scanDueRecordings } from './scan-due.js'

/** The matcher's entities, for the process that opens the ORM it works through. */
export { MATCHER_ENTITIES } from './store/entities.js'

export interface MatcherDeps extends JobActorDeps {
  objects: ObjectStore
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
  const leaseMs = deps.timing.leaseMs
  const host = new JobHost({ ...deps, log })
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
    { name: 'dispatch due jobs', run: () => dispatchDueRows(deps.db, deps.redis, frictionDue(deps.keys), { leaseMs, limit: DUE_PER_PASS, kinds: running }) },
    ...running.map((kind) => ({ name: `lapsed ${kind} jobs`, run: () => sweepLapsed(kinds[kind], lapsed) })),
  ]
  const sweeper = new PeriodicSweeper({ redis: deps.redis, lockKey: `${deps.keys.frictionMatchSlots}:sweep`, everyMs: leaseMs / 2, passes })
  sweeper.on('error', (error: unknown) => log.warn('matcher sweep failed', { error }))

  // A paused kind's entry is let go: its row stays pending, and the sweep dispatches it once a worker runs that kind.
  const consumers = consumeJobs(host, {
    stream: deps.keys.friction,
    group: GROUPS.matcher,
    kinds: FRICTION_JOB_KINDS.map((kind) => leasedKind(kinds[kind], FRICTION_ENTRIES[kind], { orm: deps.orm, slots: slotsOf(kind), leaseMs, log, paused: !running.includes(kind) })),
  })

  const service = host.service({
    name: 'matcher',
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
