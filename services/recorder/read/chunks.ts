/**
 * Reading a recording's chunks back from the object store (the recorder's objects), for the
 * dashboard's replay and timeline and the matcher's scan and checks: in seq order, gunzipped, each
 * chunk's rrweb events checked for shape and handed on one chunk at a time, so only one chunk is
 * ever held parsed. A walk is capped (CHUNKS_CAP_BYTES of events by default): a longer session is
 * read up to where the cap fell, and the walk says so.
 */
import { promisify } from 'node:util'
import { gunzip } from 'node:zlib'
import type { ObjectStore } from '../../../shared/object-store.js'

const gunzipAsync = promisify(gunzip)

/**
 * Events (as JSON, decompressed) one walk reads at most by default: about an hour of an ordinary
 * page, or several large first snapshots. A replay sends all of it to the browser in one answer and
 * the ingress process holds it while it is built, so it stays well under a process's footprint.
 */
export const CHUNKS_CAP_BYTES = 16 * 1024 * 1024
/** A stored chunk is at most 5 MiB decompressed (the ingress's cap); past this one is not ours. */
const CHUNK_INFLATE_CAP = 8 * 1024 * 1024
/** Chunks fetched from the store at once: an S3 round trip each. */
const FETCH_AHEAD = 4

/** A chunk as listed in recording_chunks. */
export interface ChunkRef {
  seq: number
  object_key: string
}

/** An rrweb event as stored: type, timestamp (ms) and data; anything else about it is untrusted. */
export interface RrwebEvent {
  type: number
  timestamp: number
  data: Record<string, unknown>
}

/** What a walk over the chunks read and what it could not. */
export interface ChunkWalk {
  /** Chunks read and handed on. */
  read: number
  /** Seqs whose object is gone or does not hold a chunk (the session page says so). */
  unreadable: number[]
  /** The seq at which the cap stopped the walk: it and the chunks after it were not read. */
  cappedAt: number | undefined
  /** Decompressed bytes of the chunks handed on. */
  bytes: number
}

/**
 * Hands visit each readable chunk's events in seq order, until the chunks decompressed pass
 * capBytes. Throws ObjectStoreUnavailable when the store cannot be reached.
 */
export async function walkChunks(objects: ObjectStore, chunks: readonly ChunkRef[], visit: (events: RrwebEvent[], seq: number) => void, capBytes = CHUNKS_CAP_BYTES): Promise<ChunkWalk> {
  const walk: ChunkWalk = { read: 0, unreadable: [], cappedAt: undefined, bytes: 0 }
  for (let start = 0; start < chunks.length; start += FETCH_AHEAD) {
    const batch = chunks.slice(start, start + FETCH_AHEAD)
    const bodies = await Promise.all(batch.map((chunk) => readChunk(objects, chunk.object_key)))
    for (const [i, chunk] of batch.entries()) {
      const body = bodies[i]!
      if (!body) {
        walk.unreadable.push(chunk.seq)
        continue
      }
      if (walk.bytes + body.bytes > capBytes && walk.read > 0) {
        walk.cappedAt = chunk.seq
        return walk
      }
      walk.bytes += body.bytes
      walk.read++
      visit(body.events, chunk.seq)
    }
  }
  return walk
}

/** A chunk's events, or undefined when its object is gone or is not a gzipped chunk. */
async function readChunk(objects: ObjectStore, key: string): Promise<{ events: RrwebEvent[]; bytes: number } | undefined> {
  const stored = await objects.get(key)
  if (!stored) return undefined
  let raw: Buffer
  try {
    raw = await gunzipAsync(stored, { maxOutputLength: CHUNK_INFLATE_CAP })
  } catch {
    return undefined
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(raw.toString('utf8'))
  } catch {
    return undefined
  }
  const events = (parsed as { events?: unknown } | null)?.events
  if (!Array.isArray(events)) return undefined
  return { events: events.filter(isEvent), bytes: raw.length }
}

function isEvent(value: unknown): value is RrwebEvent {
  if (typeof value !== 'object' || value === null) return false
  const event = value as Record<string, unknown>
  return Number.isInteger(event.type) && typeof event.timestamp === 'number' && Number.isFinite(event.timestamp) && typeof event.data === 'object' && event.data !== null && !Array.isArray(event.data)
}

