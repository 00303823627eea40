/**
 * The recorder actor (docs/recordings.md): a consumer group on the recordings stream that stores
 * each accepted chunk's metadata in PostgreSQL (store-chunks.ts), then removes its object key from
 * the ledger; and one fleet-wide sweeper that closes idle recordings, deletes expired ones and
 * clears the ledger of orphans (sweeps.ts). The chunks' bytes stay in the object store: the
 * recorder deletes objects and never reads one.
 */
import { hostname } from 'node:os'
import type { Redis } from 'ioredis'
import type { RecordingSettings, StreamTiming } from '../../shared/config/index.js'
import type { Db } from '../../shared/db/index.js'
import { JobHost, PeriodicSweeper } from '../../shared/jobs/index.js'
import type { Logger } from '../../shared/log.js'
import { ObjectStoreUnavailable, type ObjectStore } from '../../shared/object-store.js'
import { chunkFromFields, MalformedChunk, type RecordingChunk } from '../../shared/domain/recording-chunk.js'
import type { StreamKeys } from '../../shared/redis.js'
import { waitingForDatabase, type HostedService } from '../../shared/service.js'
import type { StreamEntry } from '../../shared/streams/index.js'
import { DAY, MINUTE } from '../../shared/time.js'
import { GROUPS } from '../../shared/topology.js'
import { KnownIds } from '../../shared/domain/known-ids.js'
import { chunksDuplicate, chunksSkipped, chunksStored, objectsDeleted, recordingsClosed, recordingsDeleted, watchOpen } from './metrics.js'
import { storeChunkBatch, type ChunkBatchOutcome } from './store-chunks.js'
import { clearOrphans, closeIdle, countOpen, deleteExpired } from './sweeps.js'

export interface RecorderDeps {
  db: Db
  objects: ObjectStore
  redis: Redis
  keys: StreamKeys
  log: Logger
  timing: StreamTiming
  settings: RecordingSettings
  /** Entries per read (one transaction each). */
  batchSize?: number
}

/** The recorder service, with its sweeps on demand (tests, and a worker asked to sweep at once). */
export interface Recorder extends HostedService {
  sweepNow(): Promise<void>
}

/**
 * Entries per read: a chunk is a row and a share of an update, and chunks arrive one per session
 * every 30 s, so 200 drains a thousand sessions' worth in one transaction.
 */
const BATCH_SIZE = 200
/** How often the fleet sweeps: closing is due within a minute of the idle time. */
const SWEEP_EVERY = MINUTE

/** Creates the recorder service (not yet started). */
export function createRecorder(deps: RecorderDeps): Recorder {
  const log = deps.log.child({ service: 'recorder' })
  const environments = new KnownIds()
  const done = { closed: 0, deleted: 0 }
  const handler = async (entries: StreamEntry[]): Promise<void> => {
    const chunks: RecordingChunk[] = []
    for (const entry of entries) {
      try {
        chunks.push(chunkFromFields(entry.fields))
      } catch (error) {
        if (!(error instanceof MalformedChunk)) throw error
        // Its key is not trusted, so its object is left to the ledger's orphan sweep.
        chunksSkipped.inc({ reason: 'malformed' })
        log.error('recordings stream entry is malformed; skipped', { entry: entry.id, problem: error.message })
      }
    }
    const outcome = await storeChunkBatch(deps.db, chunks, environments)
    chunksStored.inc(outcome.stored)
    chunksDuplicate.inc(outcome.duplicates)
    if (outcome.orphaned.keys.length > 0) {
      chunksSkipped.inc({ reason: 'project_gone' }, outcome.orphaned.keys.length)
      log.warn('chunks of projects that no longer exist; their objects are deleted', { projects: outcome.orphaned.projects, chunks: outcome.orphaned.keys.length })
    }
    await settleObjects(outcome)
  }

  /** After the commit: the stored chunks' keys leave the ledger; objects no row names are deleted first, or left for the orphan sweep. */
  const settleObjects = async (outcome: ChunkBatchOutcome): Promise<void> => {
    const settled = [...outcome.recorded]
    for (const [reason, keys] of [['resent', outcome.resent], ['project_gone', outcome.orphaned.keys]] as const) {
      if (keys.length === 0) continue
      try {
        await deps.objects.delete(keys)
        objectsDeleted.inc({ reason }, keys.length)
        settled.push(...keys)
      } catch (error) {
        if (!(error instanceof ObjectStoreUnavailable)) throw error
        log.warn('object store unavailable: objects no chunk row names stay in the ledger for the orphan sweep', { objects: keys.length, error: error.message })
      }
    }
    if (settled.length > 0) await deps.redis.zrem(deps.keys.recordingPuts, ...settled)
  }

  const host = new JobHost({ ...deps, log })
  const recorder = host.consumer({
    stream: deps.keys.recordings,
    group: GROUPS.recorder,
    consumer: `${hostname()}-${process.pid}-recorder-${Math.random().toString(36).slice(2, 8)}`,
    handler,
    batchSize: deps.batchSize ?? BATCH_SIZE,
  })
  const { consumer } = recorder
  consumer.on('reclaimed', ({ entries }: { entries: number }) => log.info('took over entries another consumer stopped renewing', { entries }))
  consumer.on('lost', ({ entries }: { entries: number }) => log.warn('another consumer took entries this one held (it stalled past its lease); they are stored once either way', { entries }))

  const sweeper = new PeriodicSweeper({
    redis: deps.redis,
    lockKey: `${deps.keys.recordingPuts}:sweep`,
    everyMs: SWEEP_EVERY,
    passes: [
      {
        name: 'close idle recordings',
        run: async () => {
          const closed = await closeIdle(deps.db, deps.settings.idleMs)
          recordingsClosed.inc(closed)
          done.closed += closed
        },
      },
      {
        name: 'retention',
        run: async () => {
          const deleted = await deleteExpired(deps.db, deps.objects, deps.settings.retentionMs)
          recordingsDeleted.inc(deleted.recordings)
          objectsDeleted.inc({ reason: 'retention' }, deleted.objects)
          done.deleted += deleted.recordings
          if (deleted.recordings > 0) log.info('recordings past retention deleted', deleted)
        },
      },
      {
        name: 'ledger orphans',
        run: async () => {
          const cleared = await clearOrphans(deps.db, deps.objects, deps.redis, deps.keys.recordingPuts)
          objectsDeleted.inc({ reason: 'orphan' }, cleared.deleted)
          if (cleared.deleted > 0) log.info('objects of chunks never recorded deleted', cleared)
        },
      },
    ],
  })
  sweeper.on('error', (error: Error & { pass?: string }) => log.warn('recording sweep failed; the next one tries again', { pass: error.pass, error }))

  const service = host.service({
    name: 'recorder',
    consumers: [recorder],
    sweeper,
    watch: () => watchOpen(() => countOpen(deps.db)),
    waitingFor: waitingForDatabase(deps.db),
    details: async () => [
      `recordings: open=${await countOpen(deps.db)} closed=${done.closed} deleted=${done.deleted} retention_days=${deps.settings.retentionMs / DAY} idle_minutes=${deps.settings.idleMs / MINUTE}`,
    ],
  })
  return { ...service, sweepNow: () => sweeper.sweepNow() }
}
