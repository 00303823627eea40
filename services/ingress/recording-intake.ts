/**
 * Takes recording chunks in (docs/recordings.md, "Where a chunk goes"), free of HTTP: parse and
 * sum up, then make the chunk durable before answering. In order: one Redis call checks the
 * project's per-minute limits, counts the chunk and notes its object key in the ledger; the
 * gzipped bytes go to the object store; the metadata goes on the recordings stream. A step that
 * fails undoes the ones before it, so a refused chunk leaves nothing behind: no stream entry, no
 * ledger key, no object (and its count is given back). The one exception is an object that the
 * same bytes, accepted before, still need: the same bytes make the same key.
 */
import { createHash } from 'node:crypto'
import { promisify } from 'node:util'
import { gzip } from 'node:zlib'
import type { Redis } from 'ioredis'
import type { Queryable } from '../../shared/db/index.js'
import type { BodyBytes } from '../../shared/http/exchange.js'
import type { Logger } from '../../shared/log.js'
import { ObjectStoreUnavailable, type ObjectStore } from '../../shared/object-store.js'
import { chunkFields, chunkObjectKey, type RecordingChunk } from '../../shared/domain/recording-chunk.js'
import { isRedisConnectionError, type StreamKeys } from '../../shared/redis.js'
import { SECOND } from '../../shared/time.js'
import { IngestError } from './errors.js'
import { parseRecordingChunk } from './recording-parse.js'

const gzipAsync = promisify(gzip)

const WINDOW_SECONDS = 60
/** Seconds a client waits after Redis or the object store failed: long enough for a restart to begin to tell. */
const REDIS_RETRY_AFTER = 5
const OBJECTS_RETRY_AFTER = 10

// KEYS: the chunk counter, the byte counter, the ledger. ARGV: chunk limit, byte limit, the
// chunk's decompressed bytes, counter ttl, now (ms), object key.
// Answers {1, added} when the chunk fits both limits: it is counted and its key noted (added is 1
// when the key was new to the ledger, 0 when an earlier put of the same bytes still has it there).
// Answers {0} when it does not fit: nothing moves. Fixed one-minute windows, as for events.
const ADMIT_LUA = `
local chunks = tonumber(redis.call('GET', KEYS[1]) or '0')
local bytes = tonumber(redis.call('GET', KEYS[2]) or '0')
local raw = tonumber(ARGV[3])
if chunks + 1 > tonumber(ARGV[1]) or bytes + raw > tonumber(ARGV[2]) then return {0} end
if redis.call('INCR', KEYS[1]) == 1 then redis.call('EXPIRE', KEYS[1], ARGV[4]) end
if redis.call('INCRBY', KEYS[2], raw) == raw then redis.call('EXPIRE', KEYS[2], ARGV[4]) end
return {1, redis.call('ZADD', KEYS[3], ARGV[5], ARGV[6])}
`

// Undoes ADMIT_LUA for a chunk that was not stored: gives its count back (a counter that expired
// meanwhile stays gone) and, when ARGV[3] is 1, removes its ledger key.
// KEYS as ADMIT_LUA; ARGV: decompressed bytes, object key, 1 or 0.
const RELEASE_LUA = `
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('DECR', KEYS[1]) end
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('DECRBY', KEYS[2], ARGV[1]) end
if ARGV[3] == '1' then redis.call('ZREM', KEYS[3], ARGV[2]) end
return 1
`

interface IntakeRedis extends Redis {
  /** Keys, then arguments, as ADMIT_LUA reads them. */
  svcAdmitRecording(...keysThenArgs: Array<string | number>): Promise<number[]>
  svcReleaseRecording(...keysThenArgs: Array<string | number>): Promise<number>
}

export interface RecordingIntakeOptions {
  /** A connection that fails at once while Redis is away (no offline queue): a chunk is refused, not held. */
  redis: Redis
  keys: StreamKeys
  objects: ObjectStore
  /** Read only when a stream write failed: whether a stored chunk still names the object. */
  db: Queryable
  log: Logger
  chunksPerMinute: number
  bytesPerMinute: number
}

/** One chunk taken in: what the 202 names, and what the metrics count. */
export interface AcceptedChunk {
  recordingId: string
  seq: number
  /** Stored (gzipped) bytes, and bytes after decompression. */
  bytes: number
  rawBytes: number
}

export class RecordingIntake {
  readonly #redis: IntakeRedis
  readonly #options: RecordingIntakeOptions

  constructor(options: RecordingIntakeOptions) {
    options.redis.defineCommand('svcAdmitRecording', { numberOfKeys: 3, lua: ADMIT_LUA })
    options.redis.defineCommand('svcReleaseRecording', { numberOfKeys: 3, lua: RELEASE_LUA })
    this.#redis = options.redis as IntakeRedis
    this.#options = options
  }

  /**
   * Checks one chunk for a project and stores it; resolves once it is durable (stream entry
   * added), throws IngestError otherwise, with nothing left stored. A gzipped body is stored as
   * received (it inflated cleanly, or it would not be here); any other is gzipped first.
   */
  async accept(projectId: string, body: BodyBytes, gzipped: boolean): Promise<AcceptedChunk> {
    const summary = parseRecordingChunk(body.inflated.toString('utf8'))
    const stored = gzipped ? body.wire : await gzipAsync(body.inflated)
    const digest = createHash('sha256').update(stored).digest('hex')
    const receivedAt = Date.now()
    const chunk: RecordingChunk = {
      ...summary,
      projectId,
      key: chunkObjectKey(projectId, summary.recordingId, summary.seq, digest),
      bytes: stored.length,
      rawBytes: body.inflated.length,
      receivedAt,
    }
    const { keys, objects, log } = this.#options
    const window = Math.floor(receivedAt / (WINDOW_SECONDS * SECOND))
    const counters = [keys.recordingRateLimit(projectId, 'n', window), keys.recordingRateLimit(projectId, 'b', window), keys.recordingPuts]

    let admitted: number[]
    try {
      admitted = await this.#redis.svcAdmitRecording(...counters, this.#options.chunksPerMinute, this.#options.bytesPerMinute, chunk.rawBytes, WINDOW_SECONDS + 5, receivedAt, chunk.key)
    } catch (error) {
      throw this.#redisFailed(error, 'recording admission failed')
    }
    if (admitted[0] !== 1) {
      const retryAfter = Math.max(1, Math.ceil(((window + 1) * WINDOW_SECONDS * SECOND - receivedAt) / SECOND))
      throw new IngestError('rate_limited', { retryAfter, message: 'This project sent more recording chunks, or more recorded bytes, than its per-minute limit. Wait retry_after seconds, then send the chunk again.' })
    }
    // An earlier put of these same bytes that is not recorded yet owns the ledger key: leave it.
    const ledgerKeyIsOurs = admitted[1] === 1
    /** Gives the chunk's count back and, when removeKey, its ledger key. */
    const release = (removeKey: boolean): Promise<unknown> =>
      this.#redis.svcReleaseRecording(...counters, chunk.rawBytes, chunk.key, removeKey ? 1 : 0).catch((error: unknown) => {
        if (!isRedisConnectionError(error)) log.warn('could not release a refused recording chunk', { error })
      })

    try {
      await objects.put(chunk.key, stored)
    } catch (error) {
      await release(ledgerKeyIsOurs)
      if (!(error instanceof ObjectStoreUnavailable)) throw error
      throw new IngestError('objectstore_unavailable', { retryAfter: OBJECTS_RETRY_AFTER, message: 'The object store cannot take the chunk now; nothing was stored. Send the chunk again in retry_after seconds.' })
    }

    try {
      await this.#redis.xadd(keys.recordings, '*', ...chunkFields(chunk))
    } catch (error) {
      const failure = this.#redisFailed(error, 'recordings stream write failed')
      const ours = ledgerKeyIsOurs && !(await this.#named(chunk.key))
      // Deleted, the ledger key goes too; kept when the delete fails, the ledger's sweep deletes it later.
      const deleted = ours && (await objects.delete([chunk.key]).then(
        () => true,
        (cause: unknown) => (log.warn('could not delete a recording chunk whose stream entry failed; the ledger sweep will', { key: chunk.key, error: cause }), false),
      ))
      await release(deleted)
      throw failure
    }
    return { recordingId: chunk.recordingId, seq: chunk.seq, bytes: chunk.bytes, rawBytes: chunk.rawBytes }
  }

  /**
   * True when a stored chunk names the object: the same bytes were accepted before and recorded,
   * so the object is theirs and stays. When the database cannot say, it stays too, with its ledger
   * key: the recorder's orphan sweep deletes it after a day if no row names it.
   */
  async #named(key: string): Promise<boolean> {
    try {
      const { rowCount } = await this.#options.db.query('SELECT 1 FROM recording_chunks WHERE object_key = $1 LIMIT 1', [key])
      return (rowCount ?? 0) > 0
    } catch {
      return true
    }
  }

  /** The 503 for a Redis failure; logged unless it is Redis being away, which its connection's watch reports once. */
  #redisFailed(error: unknown, what: string): IngestError {
    if (!isRedisConnectionError(error)) this.#options.log.error(what, { error })
    return new IngestError('unavailable', { retryAfter: REDIS_RETRY_AFTER, message: 'The chunk could not be queued because Redis is unreachable or refused it; nothing was stored. Send the chunk again in retry_after seconds.' })
  }
}
