/**
 * The stream runtime's metrics (docs/metrics.md), declared beside the consumer loop so that every
 * group, a new one included, is observable the day it lands: each handler call timed and sized,
 * how entries settle, batches held through an outage; and, read from Redis when scraped, how deep
 * each group's queue is.
 */
import type { EventEmitter } from 'node:events'
import type { Redis } from 'ioredis'
import { Counter, Gauge, Histogram, readWithin } from '../metrics.js'
import { SECOND } from '../time.js'
import type { HandlerContext, StreamEntry } from './entry.js'
import { queueDepth, type Depth } from './groups.js'

const batchSeconds = new Histogram({
  name: 'svc_stream_batch_duration_seconds',
  help: 'Time one handler call took (a batch, or one entry of a failed batch tried alone), by consumer group and result (ok or failed).',
  labelNames: ['group', 'result'],
  // From a grouper batch (tens of ms) to an investigation or a fix (minutes).
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
})
const batchEntries = new Histogram({
  name: 'svc_stream_batch_entries',
  help: 'Entries handed to one handler call, by consumer group.',
  labelNames: ['group'],
  buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500],
})
const counter = (name: string, help: string) => new Counter({ name, help, labelNames: ['group'] })
const acked = counter('svc_stream_entries_acked_total', 'Entries acknowledged after their handler committed, by consumer group.')
const retried = counter('svc_stream_entries_retried_total', 'Entries that failed and wait out a backoff before another attempt, by consumer group.')
const deadLettered = counter('svc_stream_entries_dead_lettered_total', 'Entries copied to the dead-letter stream after their last attempt, by consumer group.')
const split = counter('svc_stream_entries_split_total', 'Packed entries that failed alone and were replaced by their parts, by consumer group.')
const reclaimed = counter('svc_stream_entries_reclaimed_total', 'Entries taken over from a consumer that stopped renewing its lease, by consumer group.')
const lost = counter('svc_stream_entries_lost_total', 'Entries another consumer took from this one (it stalled past its lease), by consumer group.')
const held = counter('svc_stream_batches_held_total', 'Batches held, spending no attempt, because what the handler depends on was down, by consumer group.')

/** Wraps a group's handler so that every call is timed and sized. */
export function timeBatches(group: string, handler: (entries: StreamEntry[], context: HandlerContext) => Promise<void>): typeof handler {
  const ok = batchSeconds.labels(group, 'ok')
  const failed = batchSeconds.labels(group, 'failed')
  const size = batchEntries.labels(group)
  return async (entries, context) => {
    size.observe(entries.length)
    const started = performance.now()
    try {
      await handler(entries, context)
      ok.observe((performance.now() - started) / SECOND)
    } catch (error) {
      failed.observe((performance.now() - started) / SECOND)
      throw error
    }
  }
}

/** Counts how a consumer's entries settle, from the events it emits; answers what the loop counts itself. */
export function instrumentConsumer(consumer: EventEmitter, group: string): { acked(entries: number): void; held(): void } {
  consumer.on('retry', () => retried.inc({ group }))
  consumer.on('dead', () => deadLettered.inc({ group }))
  consumer.on('split', () => split.inc({ group }))
  consumer.on('reclaimed', ({ entries }: { entries: number }) => reclaimed.inc({ group }, entries))
  consumer.on('lost', ({ entries }: { entries: number }) => lost.inc({ group }, entries))
  const ackedOf = acked.labels(group)
  const heldOf = held.labels(group)
  return { acked: (entries) => ackedOf.inc(entries), held: () => heldOf.inc() }
}

/** The streams a process reports the depth of: the topology's, with the connection to read them over. */
interface Watched {
  redis: Redis
  streams: ReadonlyArray<{ name: string; stream: string; groups: readonly string[] }>
}

/** A scrape waits this long for Redis; past it the depth gauges are left out and svc_stream_depth_up is 0. */
const DEPTH_READ_MS = 2 * SECOND

const watched = new Set<Watched>()
let reading: Promise<Array<{ stream: string; group: string; depth: Depth | undefined }>> | undefined

/**
 * Every watched group with its depth, read once per scrape however many gauges ask (they ask in the
 * same turn); depth is undefined for all when Redis did not answer within DEPTH_READ_MS.
 */
function readDepths(): NonNullable<typeof reading> {
  reading ??= (async () => {
    const rows = [...watched].flatMap(({ redis, streams }) => streams.flatMap(({ name, stream, groups }) => groups.map((group) => ({ redis, stream, name, group }))))
    const depths = await readWithin(() => Promise.all(rows.map((row) => queueDepth(row.redis, row.stream, row.group))), DEPTH_READ_MS)
    return rows.map((row, i) => ({ stream: row.name, group: row.group, depth: depths?.[i] }))
  })().finally(() => (reading = undefined))
  return reading
}

/** A gauge labelled by stream and group whose value is read from each group's depth when scraped. */
function depthGauge(name: string, help: string, pick: (depth: Depth | undefined) => number | undefined): void {
  new Gauge({
    name,
    help,
    labelNames: ['stream', 'group'],
    async collect() {
      const rows = await readDepths()
      this.reset()
      for (const row of rows) {
        const value = pick(row.depth)
        if (value !== undefined) this.set({ stream: row.stream, group: row.group }, value)
      }
    },
  })
}

depthGauge('svc_stream_depth_up', 'Whether the last scrape read the group\'s depth from Redis in time (1) or not (0: its depth gauges are left out).', (d) => (d ? 1 : 0))
depthGauge('svc_stream_lag_entries', 'Entries on the stream not yet delivered to the group (an events entry packs the events of one ingress turn).', (d) => d?.lag)
depthGauge('svc_stream_pending_entries', 'Entries delivered to a consumer of the group and not yet acknowledged.', (d) => d?.pending)
depthGauge('svc_stream_retry_entries', "Entries due again on the group's retry stream.", (d) => d?.retry)
depthGauge('svc_stream_delayed_entries', 'Entries of the group waiting out a retry backoff.', (d) => d?.heldBack)
depthGauge('svc_stream_dead_letter_entries', "Entries in the group's dead-letter stream (svc dead-letters lists and replays them).", (d) => d?.deadLettered)

/** Reports the depth of every group on streams from now on, read over redis at each scrape; answers how to stop. */
export function watchStreamDepths(redis: Redis, streams: Watched['streams']): () => void {
  const entry = { redis, streams }
  watched.add(entry)
  return () => void watched.delete(entry)
}
