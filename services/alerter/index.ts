/**
 * The alerter actor (docs/alerts.md): reads the grouper's issue-change notes (stream:issue-changes,
 * group alerter) and records the firings of each project's alert rules with the deliveries that
 * fold them (decide.ts, record-firings.ts); posts each delivery to the project's chat as one kind
 * of leased job on the job runtime (delivery.ts, stream:alerts); and one periodic sweep for the
 * fleet dispatches due deliveries (retries, gathers whose timer was lost) and lapsed ones.
 */
import type { AlertSettings } from '../../shared/config/alerts.js'
import { changesOf } from '../../shared/domain/issue-changes.js'
import { consumeJobs, dispatchDueRows, dispatchRows, FleetSlots, JobHost, leasedKind, PeriodicSweeper, sweepLapsed, type JobActorDeps } from '../../shared/jobs/index.js'
import type { ChatPlugin } from '../../shared/plugins/types.js'
import { waitingForDatabase, type HostedService } from '../../shared/service.js'
import type { StreamEntry } from '../../shared/streams/index.js'
import { GROUPS } from '../../shared/topology.js'
import { decide } from './decide.js'
import { ALERT_ENTRY, deliveriesDue, deliveryJob } from './delivery.js'
import { alertHealth } from './health.js'
import { firedWithinHour, recordFirings } from './record-firings.js'

/** The alerter's entities, for the process that opens the ORM it works through. */
export { ALERTER_ENTITIES } from './store/entities.js'

export interface AlerterDeps extends JobActorDeps {
  settings: AlertSettings
  /** The chat plugin (undefined: firings are recorded, nothing is posted). */
  chat: ChatPlugin | undefined
  /** The dashboard's address, for the links in an alert. */
  baseUrl: string
}

/** Deliveries one sweep pass dispatches at most. */
const PER_PASS = 500

/** Creates the alerter service (not yet started). */
export function createAlerter(deps: AlerterDeps): HostedService {
  const log = deps.log.child({ service: 'alerter' })
  const leaseMs = deps.timing.leaseMs
  const host = new JobHost({ ...deps, log })
  const slots = new FleetSlots(deps.redis, deps.keys.alertSlots, deps.settings.maxConcurrent, leaseMs)
  const kind = deliveryJob({ db: deps.db, redis: deps.redis, keys: deps.keys, chat: deps.chat, baseUrl: deps.baseUrl, settings: deps.settings })
  const due = deliveriesDue(deps.keys)
  const paused = deps.settings.maxConcurrent === 0
  const timers = new Set<NodeJS.Timeout>()
  // The gather delay's end dispatches a new delivery at once; the sweep is the fallback for a lost timer.
  const dispatchLater = (ids: string[]): void => {
    if (ids.length === 0 || paused) return
    const timer = setTimeout(() => {
      timers.delete(timer)
      dispatchRows(deps.db, deps.redis, due, ids, leaseMs).catch((error: unknown) => log.warn('alert dispatch failed; the sweep dispatches it', { error }))
    }, deps.settings.gatherMs)
    timers.add(timer)
  }
  const sweeper = new PeriodicSweeper({
    redis: deps.redis,
    lockKey: `${deps.keys.alertSlots}:sweep`,
    everyMs: deps.settings.sweepMs,
    passes: paused ? [] : [
      { name: 'dispatch due alerts', run: () => dispatchDueRows(deps.db, deps.redis, due, { leaseMs, limit: PER_PASS }) },
      { name: 'lapsed alerts', run: () => sweepLapsed(kind, { orm: deps.orm, leaseMs, maxAttempts: deps.timing.maxAttempts }) },
    ],
  })
  sweeper.on('error', (error: unknown) => log.warn('alert sweep failed', { error }))
  const firings = host.consumer({
    stream: deps.keys.issueChanges,
    group: GROUPS.alerter,
    consumer: `${host.name}-alerter`,
    what: 'alerter',
    batchSize: 100,
    handler: async (entries: StreamEntry[]) => {
      const candidates = await decide(deps.db, entries.flatMap((entry) => changesOf(entry.fields)), (pairs) => firedWithinHour(deps.db, pairs))
      const recorded = await recordFirings(deps.db, candidates, deps.settings.gatherMs)
      if (recorded.fired > 0) log.info('alerts fired', { fired: recorded.fired, deliveries: recorded.opened.length })
      dispatchLater(recorded.opened)
    },
  })
  const service = host.service({
    name: 'alerter',
    consumers: [
      firings,
      ...consumeJobs(host, { stream: deps.keys.alerts, group: GROUPS.alertDeliveries, kinds: [leasedKind(kind, ALERT_ENTRY, { orm: deps.orm, slots, leaseMs, log, paused })] }),
    ],
    sweeper,
    waitingFor: waitingForDatabase(deps.db),
    details: () => alertHealth(deps.db, slots, deps.settings, deps.chat !== undefined),
  })
  return {
    ...service,
    stop: async () => {
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      await service.stop()
    },
  }
}
