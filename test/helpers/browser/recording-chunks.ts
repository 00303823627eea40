/**
 * Recording chunks as the ingress hands them on (docs/recordings.md, "Where a chunk goes"): the
 * object key noted in the ledger, the gzipped chunk put in the object store, its metadata added
 * to the recordings stream. Tests of the recorder start there, as a real ingress would leave it.
 */
import { createHash } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import type { Redis } from 'ioredis'
import { createLogger, type Logger } from '../../../shared/log.js'
import type { ObjectStore } from '../../../shared/object-store.js'
import { chunkFields, chunkObjectKey, type RecordingChunk } from '../../../shared/domain/recording-chunk.js'
import type { StreamKeys } from '../../../shared/redis.js'
import { ensureGroup, queueDepth } from '../../../shared/streams/index.js'
import { GROUPS } from '../../../shared/topology.js'
import { waitFor } from '../stack.js'

export interface ChunkPlace {
  objects: ObjectStore
  redis: Redis
  keys: StreamKeys
}

/** A chunk's metadata with test defaults; the key follows from the bytes (seq and a hash of them), as the ingress makes it. */
export function chunkOf(projectId: string, recordingId: string, seq: number, overrides: Partial<RecordingChunk> & { body?: string } = {}): RecordingChunk & { gzipped: Buffer } {
  const body = overrides.body ?? JSON.stringify({ recording_id: recordingId, seq, events: [{ type: 3, timestamp: Date.now(), data: { n: seq } }] })
  const gzipped = gzipSync(body)
  const firstAt = overrides.firstAt ?? Date.now() - 30_000
  return {
    projectId,
    recordingId,
    seq,
    key: chunkObjectKey(projectId, recordingId, seq, createHash('sha256').update(gzipped).digest('hex')),
    bytes: gzipped.length,
    rawBytes: Buffer.byteLength(body),
    firstAt,
    lastAt: overrides.lastAt ?? firstAt + 20_000,
    receivedAt: overrides.receivedAt ?? Date.now(),
    sessionId: 'session-1',
    user: undefined,
    release: undefined,
    environment: undefined,
    pages: [],
    clicks: 0,
    errors: 0,
    ...overrides,
    gzipped,
  }
}

/** Does what the ingress does for an accepted chunk: ledger, object, stream entry. Answers the entry id. */
export async function sendChunk(place: ChunkPlace, chunk: RecordingChunk & { gzipped: Buffer }, options: { putAt?: number } = {}): Promise<string> {
  await place.redis.zadd(place.keys.recordingPuts, options.putAt ?? Date.now(), chunk.key)
  await place.objects.put(chunk.key, chunk.gzipped)
  return (await place.redis.xadd(place.keys.recordings, '*', ...chunkFields(chunk)))!
}

/** Creates the recorder's group, as a worker does before its services start. */
export function recorderGroup(place: Pick<ChunkPlace, 'redis' | 'keys'>): Promise<void> {
  return ensureGroup(place.redis, place.keys.recordings, GROUPS.recorder)
}

/** Waits until the recorder's group has nothing eligible or pending. */
export async function recorderDrained(place: Pick<ChunkPlace, 'redis' | 'keys'>, timeoutMs = 20_000): Promise<void> {
  await waitFor(async () => {
    const depth = await queueDepth(place.redis, place.keys.recordings, GROUPS.recorder)
    return depth.eligible === 0 && depth.heldBack === 0
  }, timeoutMs, 50)
}

/** A logger whose lines the test reads. */
export function capturedLog(): { log: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = []
  return { lines, log: createLogger('info', {}, (line) => lines.push(JSON.parse(line) as Record<string, unknown>)) }
}
