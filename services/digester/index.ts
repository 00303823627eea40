/**
 * The digester actor (docs/digest.md), built on the job runtime (shared/jobs/): one kind of leased
 * job, the digest (job.ts: write, check, deliver), read from stream:digests one at a time per
 * consumer loop under a fleet-wide cap (DIGEST_MAX_CONCURRENT; 0 pauses), and one periodic sweep
 * for the fleet: schedule new projects, open the due projects' digests, dispatch due steps, and
 * the lapsed-lease sweep. Its calendar is the injected clock.
 */
import type { StreamTiming } from '../../shared/config/index.js'
import type { DigestSettings } from '../../shared/config/digest.js'
import { consumeJobs, dispatchDueRows, FleetSlots, JobHost, leasedKind, PeriodicSweeper, sweepLapsed, type JobActorDeps } from '../../shared/jobs/index.js'
import type { ModelPlugin } from '../../shared/plugins/model-types.js'
import type { ChatPlugin } from '../../shared/plugins/types.js'
import { waitingForDatabase, type HostedService } from '../../shared/service.js'
import { GROUPS } from '../../shared/topology.js'
import { systemClock, type Clock } from './clock.js'
import { digestHealth } from './health.js'
import { DIGEST_ENTRY, digestJob, digestsDue } from './job.js'
import { openDueDigests, scheduleProjects } from './sweep.js'

export type { Clock } from './clock.js'
/** The digester's entities, for the process that opens the ORM it works through. */
export { DIGESTER_ENTITIES } from './store/entities.js'

export interface DigesterDeps extends JobActorDeps {
  settings: DigestSettings
  /** The chat plugin (undefined: digests are kept for the dashboard and the tool server only). */
  chat: ChatPlugin | undefined
  /** The model that writes the text (undefined: mechanical text). */
  model: ModelPlugin | undefined
  /** The dashboard's address, for the links in a digest. */
  baseUrl: string
  clock?: Clock
}

/** The digester service, with its sweep on demand (tests, and a worker asked to sweep at once). */
export interface Digester extends HostedService {
  sweepNow(): Promise<void>
}

/** Rows one pass handles at most: the rest wait for the next pass, seconds later. */
const PER_PASS = 500
/** Consumer loops one process runs at most. */
const MAX_LOOPS = 8

/**
 * Consumer loops one process runs: a step mostly waits on round trips (PostgreSQL, the chat, the
 * model), so as many as the fleet cap allows (at most 8), not just SVC_STREAM_CONSUMERS: the 09:00
 * peak of a zone with thousands of projects is a queue of short steps.
 */
export function digesterLoops(timing: StreamTiming, settings: DigestSettings): number {
  return Math.max(1, timing.consumersPerProcess, Math.min(settings.maxConcurrent, MAX_LOOPS))
}

/** Creates the digester service (not yet started). */
export function createDigester(deps: DigesterDeps): Digester {
  const log = deps.log.child({ service: 'digester' })
  const clock = deps.clock ?? systemClock
  const leaseMs = deps.timing.leaseMs
  const host = new JobHost({ ...deps, log })
  const slots = new FleetSlots(deps.redis, deps.keys.digestSlots, deps.settings.maxConcurrent, leaseMs)
  const kind = digestJob({ db: deps.db, redis: deps.redis, keys: deps.keys, clock, chat: deps.chat, model: deps.model, baseUrl: deps.baseUrl, checkDelayMs: deps.settings.checkDelayMs })
  const paused = deps.settings.maxConcurrent === 0
  const sweeper = new PeriodicSweeper({
    redis: deps.redis,
    lockKey: `${deps.keys.digestSlots}:sweep`,
    everyMs: deps.settings.sweepMs,
    passes: [
      { name: 'schedule projects', run: () => scheduleProjects(deps.db, clock, PER_PASS) },
      { name: 'open due digests', run: () => openDueDigests(deps.db, clock, PER_PASS) },
      // Paused: rows are opened (the day is not lost) but no step is dispatched.
      ...(paused ? [] : [
        { name: 'dispatch due digests', run: () => dispatchDueRows(deps.db, deps.redis, digestsDue(deps.keys), { now: clock.now(), leaseMs, limit: PER_PASS }) },
        { name: 'lapsed digests', run: () => sweepLapsed(kind, { orm: deps.orm, leaseMs, maxAttempts: deps.timing.maxAttempts }) },
      ]),
    ],
  })
  sweeper.on('error', (error: unknown) => log.warn('digest sweep failed', { error }))

  const service = host.service({
    name: 'digester',
    consumers: consumeJobs(host, {
      stream: deps.keys.digests,
      group: GROUPS.digester,
      loops: digesterLoops(deps.timing, deps.settings),
      kinds: [leasedKind(kind, DIGEST_ENTRY, { orm: deps.orm, slots, leaseMs, log, paused })],
    }),
    sweeper,
    waitingFor: waitingForDatabase(deps.db),
    details: () => digestHealth(deps.db, slots, deps.settings, deps.model?.label, deps.chat !== undefined),
  })
  return { ...service, sweepNow: () => sweeper.sweepNow() }
}
