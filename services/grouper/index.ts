/** The grouper actor: a consumer group on the events stream that groups and stores events. */
import { hostname } from 'node:os'
import type { Redis } from 'ioredis'
import type { StreamTiming } from '../../shared/config/index.js'
import { isDatabaseOutage, type Db } from '../../shared/db/index.js'
import type { ObjectStore } from '../../shared/object-store.js'
import { envelopeFields, envelopesFromFields, type EventEnvelope } from '../../shared/domain/event.js'
import { changeFields } from '../../shared/domain/issue-changes.js'
import type { Logger } from '../../shared/log.js'
import { Counter } from '../../shared/metrics.js'
import { publishWake, type StreamKeys } from '../../shared/redis.js'
import { waitingForDatabase, type HostedService } from '../../shared/service.js'
import { groupActivity, queueDepth, StreamConsumer, type StreamEntry } from '../../shared/streams/index.js'
import { GROUPS } from '../../shared/topology.js'
import { ProjectVersions } from './project-versions.js'
import { KnownIds } from '../../shared/domain/known-ids.js'
import { storeEventBatch } from './store-events.js'
import { DEFAULT_SAMPLING, issueSamplingOf } from './issue-sampling.js'
import type { DataSettings } from '../../shared/config/data.js'
import { addIntakeTally } from '../../shared/domain/intake-tally.js'
import { storedMaps } from './symbolication/stored-maps.js'
import { Symbolicator } from './symbolication/symbolicator.js'
import type { PeriodicSweeper } from '../../shared/jobs/index.js'
import { retentionSweep } from './retention/sweep.js'


export interface GrouperDeps {
  db: Db
  /** Where uploaded source maps are read from. */
  objects: ObjectStore
  redis: Redis
  keys: StreamKeys
  log: Logger
  timing: StreamTiming
  /** Data limits (config.data): the grouper samples floods of one issue by them; absent, the defaults an unset environment gives. */
  data?: DataSettings
  /** Entries per read (one transaction each); by default, as many as make about EVENTS_PER_BATCH events. */
  batchSize?: number
}

/** [name, value, name, value] as [name, value] pairs. */
function pairsOf(flat: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = []
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!])
  return out
}

/** The envelopes of an entry, or undefined for one that cannot be read at all (it then fails whole). */
function readableEnvelopes(entry: StreamEntry): EventEnvelope[] | undefined {
  try {
    return envelopesFromFields(entry.fields).envelopes
  } catch {
    return undefined
  }
}

/**
 * Events per transaction the grouper aims at. A read counts entries, and an entry holds one event
 * under light load and a dozen or more under heavy load, so the entries per read follow the recent
 * events per entry: a fixed 500 entries made transactions of thousands of events under load, whose
 * objects outlived scavenges (drain fell by a fifth), and a fixed 50 made a backlog of single-event
 * entries drain in transactions too small to catch up.
 */
const EVENTS_PER_BATCH = 600

// What the grouper's batches did with their events (the runtime times the batches themselves).
const stored = new Counter({ name: 'svc_grouper_events_stored_total', help: 'Events the grouper stored (noise included), each once: a redelivered event counts as a duplicate.' })
const duplicates = new Counter({ name: 'svc_grouper_events_duplicate_total', help: 'Events the grouper found stored already (a redelivery, or a resend with the same event_id).' })
const noise = new Counter({ name: 'svc_grouper_events_noise_total', help: 'Events the noise rules marked, stored in noise issues and never investigated (a redelivered batch counts its noise again).' })
const sampled = new Counter({ name: 'svc_grouper_events_sampled_total', help: 'Events the grouper counted but stored slim, past their issue\'s cap in its window (docs/sampling.md); each once.' })
const unreadable = new Counter({ name: 'svc_grouper_events_unreadable_total', help: 'Events whose body no longer parses: skipped and logged, not retried.' })

/** Creates the grouper service (not yet started). */
export function createGrouper(deps: GrouperDeps): HostedService {
  const log = deps.log.child({ service: 'grouper' })
  const symbolicator = new Symbolicator(storedMaps(deps.db, deps.objects))
  const versions = new ProjectVersions(deps.db)
  const known = { issues: new KnownIds(), environments: new KnownIds(), seen: new KnownIds() }
  const sampling = deps.data ? issueSamplingOf(deps.data) : DEFAULT_SAMPLING
  let eventsPerEntry = 1
  const handler = async (entries: StreamEntry[]): Promise<void> => {
    const envelopes: EventEnvelope[] = []
    for (const entry of entries) {
      const read = envelopesFromFields(entry.fields)
      envelopes.push(...read.envelopes)
      if (read.malformed > 0) log.error('events stream entry holds records without envelope fields; skipped', { entry: entry.id, records: read.malformed })
    }
    eventsPerEntry = 0.7 * eventsPerEntry + 0.3 * Math.max(1, envelopes.length / entries.length)
    const outcome = await storeEventBatch(deps.db, envelopes, symbolicator, versions, known, sampling)
    stored.inc(outcome.stored)
    duplicates.inc(outcome.duplicates)
    noise.inc(outcome.noise)
    unreadable.inc(outcome.unreadable.length)
    // After the commit: the storage panel's tally of events counted but not stored whole.
    for (const [projectId, n] of Object.entries(outcome.sampled)) {
      sampled.inc(n)
      await addIntakeTally(deps.redis, deps.keys, projectId, 'sampled', n)
    }
    // After the commit: admission hears which issues gained events (a redelivered batch says it again).
    if (outcome.changes.length > 0) await deps.redis.xadd(deps.keys.issueChanges, '*', ...Object.entries(changeFields(outcome.changes)).flat())
    // After the commit: setup sessions held on "until an event arrives" re-read their facts.
    await Promise.all([...new Set(envelopes.map((envelope) => envelope.projectId))].map((projectId) => publishWake(deps.redis, deps.keys.wakeProject(projectId))))
    if (outcome.unreadable.length > 0) log.error('events with unreadable bodies skipped', { ids: outcome.unreadable })
    log.debug('batch stored', { ...outcome, unreadable: outcome.unreadable.length })
  }
  const consumers = Array.from({ length: Math.max(1, deps.timing.consumersPerProcess) }, (_, i) => {
    const consumer = new StreamConsumer({
      redis: deps.redis,
      stream: deps.keys.events,
      group: GROUPS.grouper,
      consumer: `${hostname()}-${process.pid}-${i}-${Math.random().toString(36).slice(2, 8)}`,
      handler,
      batchSize: deps.batchSize ?? (() => Math.max(10, Math.min(500, Math.round(EVENTS_PER_BATCH / eventsPerEntry)))),
      leaseMs: deps.timing.leaseMs,
      retryBaseMs: deps.timing.retryBaseMs,
      maxAttempts: deps.timing.maxAttempts,
      isOutage: isDatabaseOutage,
      // The database's outage watch logs the outage once per process and probes until it answers.
      untilRecovered: (error) => deps.db.outage.untilBack(error),
      // Storing is idempotent by event id: parts whose events were stored before are not counted twice.
      split: (entry) => {
        const envelopes = readableEnvelopes(entry)
        return envelopes && envelopes.length > 1 ? envelopes.map((envelope) => Object.fromEntries(pairsOf(envelopeFields(envelope)))) : undefined
      },
    })
    consumer.on('error', (error: unknown) => log.error('grouper consumer error', { error }))
    consumer.on('reclaimed', ({ entries }: { entries: number }) => log.info('took over entries another consumer stopped renewing', { entries }))
    consumer.on('lost', ({ entries }: { entries: number }) => log.warn('another consumer took entries this one held (it stalled past its lease); they are stored once either way', { entries }))
    return consumer
  })
  const sweeper: PeriodicSweeper = retentionSweep(deps, log)
  return {
    name: 'grouper',
    start: async () => {
      for (const consumer of consumers) await consumer.start()
      sweeper.start()
    },
    stop: async () => {
      await Promise.all([...consumers.map((consumer) => consumer.stop()), sweeper.stop()])
    },
    depth: () => queueDepth(deps.redis, deps.keys.events, GROUPS.grouper),
    // The laggard counts: one stuck loop holds its entries even while the others move.
    lastProgressAt: () => Math.min(...consumers.map((consumer) => consumer.lastProgressAt)),
    fleetIdleMs: async () => (await groupActivity(deps.redis, deps.keys.events, GROUPS.grouper)).minIdleMs,
    waitingFor: waitingForDatabase(deps.db),
  }
}
