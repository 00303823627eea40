/**
 * The ingestion routes: events, recording chunks, the SDK's ping and source-map uploads. Each parses the request,
 * calls a use case and maps the result to a status. The process that serves them registers them on
 * its one uWS app beside the web side's routes (bin/front/).
 */
import type uWS from 'uWebSockets.js'
import type { Db } from '../../shared/db/index.js'
import { BodyError } from '../../shared/http/errors.js'
import { exchange, readBodyBytes, readBodyText, readBodyTextThen, send, sendError, type Exchange } from '../../shared/http/exchange.js'
import { readQuery } from '../../shared/http/request-text.js'
import type { ObjectStore } from '../../shared/object-store.js'
import { acceptEvent, acceptEventThen, KEY_CHECK_RETRY_AFTER, requireIngestKey, type IngestDeps, type IngestKey } from './accept-event.js'
import { CHUNK_KEY_MESSAGES, ingestBodyError, IngestError, UPLOAD_KEY_MESSAGES, type IngestErrorCode } from './errors.js'
import { countAccepted, countChunkAccepted, countChunkRefused, countRefused } from './metrics.js'
import type { RecordingIntake } from './recording-intake.js'
import { registerSentryRoutes } from './sentry/routes.js'
import { uploadSourceMap } from './upload-sourcemap.js'

export interface IngestRouteDeps extends IngestDeps {
  maxEventBytes: number
  uploads: { db: Db; objects: ObjectStore; maxBytes: number }
  /** Recording chunks: where they are taken in, and their cap after decompression. */
  recordings: { intake: Pick<RecordingIntake, 'accept'>; maxBytes: number }
  /**
   * Called with the project of a ping from a browser: the SDK loaded in a page. The composer wires
   * it to the setup sessions' app_reporting fact; it must not throw or delay the answer.
   */
  onSdkPing(projectId: string): void
  /** A map was stored for the project: held setup polls re-read their sourcemaps_uploaded fact. */
  onSourceMapStored(projectId: string): void
  /** Counts a request in flight, so a graceful stop lets it answer. */
  track(work: Promise<void>): void
  /** The same count, entered and left by hand (no promise): the events route's hot path. */
  inFlight: { enter(): void; leave(): void }
}

const EVENT_MESSAGES = { mediaType: 'Send the event with Content-Type: application/json.' }

/** Registers POST /api/v1/events, /api/v1/recordings, /api/v1/ingest/ping and /api/v1/sourcemaps on app. */
export function registerIngestRoutes(app: uWS.TemplatedApp, deps: IngestRouteDeps): void {
  const { track } = deps

  app.post('/api/v1/events', (res, req) => {
    const started = performance.now()
    const ex = exchange(res)
    const body = bodyHeaders(req)
    // A key seen recently is answered from memory, with no promise on the way (the common case);
    // otherwise its lookup overlaps the body.
    const known = deps.auth.cached(body.token, 'ingest')
    if (known?.ok) return acceptKnown(ex, deps, body, known, started)
    track(handle(ex, deps, (code) => countRefused(code, started), async () => {
      checkBodyHeaders(body, deps.maxEventBytes, EVENT_MESSAGES)
      const [key, text] = await Promise.all([requireIngestKey(deps, body.token), readBodyText(ex, deps.maxEventBytes, body.gzipped)])
      const id = await acceptEvent(deps, key, text)
      send(ex, 202, JSON.stringify({ id }))
      countAccepted(started)
    }))
  })

  app.post('/api/v1/recordings', (res, req) => {
    const ex = exchange(res)
    const body = bodyHeaders(req)
    const cap = deps.recordings.maxBytes
    const tooLarge = `The chunk is over ${cap / 1024 / 1024} MiB (counted after decompression); nothing was stored. Send the recording in smaller chunks (flush more often).`
    track(handle(ex, deps, countChunkRefused, async () => {
      checkBodyHeaders(body, cap, { mediaType: 'Send the chunk with Content-Type: application/json.', tooLarge })
      // uWS hands body chunks only to a reader attached before the first await; start it now.
      const reading = readBodyBytes(ex, cap, body.gzipped)
      reading.catch(() => {}) // observed below, unless the key fails first
      const key = await requireIngestKey(deps, body.token, CHUNK_KEY_MESSAGES)
      const received = await reading.catch((error: unknown) => {
        throw error instanceof BodyError && error.reason === 'too_large' ? new IngestError('payload_too_large', { message: tooLarge }) : error
      })
      const chunk = await deps.recordings.intake.accept(key.projectId, received, body.gzipped)
      send(ex, 202, JSON.stringify({ recording_id: chunk.recordingId, seq: chunk.seq }))
      countChunkAccepted(chunk.bytes, chunk.rawBytes)
    }))
  })

  app.post('/api/v1/ingest/ping', (res, req) => {
    const ex = exchange(res)
    const token = req.getHeader('x-api-key') || undefined
    // Browsers send Origin on every POST; curl and server-side checks do not. A browser's ping is
    // the SDK having loaded in a page: the app_reporting signal of setup sessions.
    const fromBrowser = req.getHeader('origin') !== ''
    res.onData(() => {}) // a ping has no body; drain anything sent
    track(handle(ex, deps, undefined, async () => {
      const key = await requireIngestKey(deps, token)
      if (fromBrowser) deps.onSdkPing(key.projectId)
      send(ex, 204, undefined)
    }))
  })

  app.post('/api/v1/sourcemaps', (res, req) => {
    const ex = exchange(res)
    const body = bodyHeaders(req)
    const query = readQuery(req.getQuery())
    const target = { path: query.get('path') ?? undefined, release: query.get('release') ?? undefined, debugId: req.getHeader('x-svc-debug-id') || undefined }
    const cap = deps.uploads.maxBytes
    const tooLarge = `The source map is over ${cap / 1024 / 1024} MiB (counted after decompression). Upload it without inlined sources, or split the bundle.`
    track(handle(ex, deps, undefined, async () => {
      checkBodyHeaders(body, cap, { mediaType: 'Upload the map with Content-Type: application/json.', tooLarge })
      // uWS hands body chunks only to a reader attached before the first await; start it now.
      const reading = readBodyText(ex, cap, body.gzipped)
      reading.catch(() => {}) // observed below, unless the key fails first
      const auth = await deps.auth.authenticate(body.token, 'sourcemap')
      if (!auth.ok) throw new IngestError(auth.code, { message: UPLOAD_KEY_MESSAGES[auth.code], retryAfter: auth.code === 'key_check_unavailable' ? KEY_CHECK_RETRY_AFTER : undefined })
      const text = await reading.catch((error: unknown) => {
        throw error instanceof BodyError && error.reason === 'too_large' ? new IngestError('payload_too_large', { message: tooLarge }) : error
      })
      const stored = await uploadSourceMap(deps.uploads, auth.projectId, target, text)
      deps.onSourceMapStored(auth.projectId)
      send(ex, 201, JSON.stringify(stored))
    }))
  })

  registerSentryRoutes(app, deps)
}

/**
 * The events route for a key answered from memory: the same steps and answers as the general
 * path, by callbacks. Per event, an async body, Promise.all, the accept's and the queue's promises
 * and their microtask turns were a measurable share of an ingress thread's time.
 */
function acceptKnown(ex: Exchange, deps: IngestRouteDeps, body: BodyHeaders, key: IngestKey, started: number): void {
  try {
    checkBodyHeaders(body, deps.maxEventBytes, EVENT_MESSAGES)
  } catch (error) {
    return refuseEvent(ex, deps, started, error)
  }
  // Inline callbacks only: a named closure per request costs a defineProperty in the compiled
  // tree (esbuild's keepNames).
  deps.inFlight.enter()
  readBodyTextThen(
    ex,
    deps.maxEventBytes,
    body.gzipped,
    (text) => {
      try {
        acceptEventThen(deps, key, text, (error, id) => {
          deps.inFlight.leave()
          if (error) return refuseEvent(ex, deps, started, error)
          send(ex, 202, `{"id":"${id}"}`)
          countAccepted(started)
        })
      } catch (error) {
        deps.inFlight.leave()
        refuseEvent(ex, deps, started, error)
      }
    },
    (error) => {
      deps.inFlight.leave()
      refuseEvent(ex, deps, started, error)
    },
  )
}

/** Answers an events request with the catalogued error for a failure, and counts it. */
function refuseEvent(ex: Exchange, deps: IngestDeps, started: number, error: unknown): void {
  const answer = answerFor(error, deps)
  countRefused(answer.code, started)
  sendError(ex, answer)
}

/** The catalogued answer to a failure: its own, the body reader's, else internal_error (logged). */
function answerFor(error: unknown, deps: IngestDeps): IngestError {
  if (error instanceof IngestError) return error
  if (error instanceof BodyError) return ingestBodyError(error)
  deps.log.error('ingress route failed', { error })
  return new IngestError('internal_error')
}

/**
 * Runs a route body, turning any failure into a catalogued answer; never lets one escape. A route
 * whose refusals are counted passes its counter.
 */
function handle(ex: Exchange, deps: IngestDeps, countRefusal: ((code: IngestErrorCode) => void) | undefined, body: () => Promise<void>): Promise<void> {
  return body().catch((error: unknown) => {
    const answer = answerFor(error, deps)
    countRefusal?.(answer.code)
    sendError(ex, answer)
  })
}

interface BodyHeaders {
  token: string | undefined
  contentType: string
  encoding: string
  gzipped: boolean
  declaredLength: number
}

/** The headers a body route needs, read at once: uWS keeps them on its stack only until the first await. */
function bodyHeaders(req: uWS.HttpRequest): BodyHeaders {
  const encoding = req.getHeader('content-encoding').toLowerCase()
  return {
    token: req.getHeader('x-api-key') || undefined,
    contentType: req.getHeader('content-type'),
    encoding,
    gzipped: encoding === 'gzip',
    declaredLength: Number(req.getHeader('content-length') || 0),
  }
}

/** Refuses a body by its headers alone: wrong type, unknown encoding, or declared over cap. */
function checkBodyHeaders(headers: BodyHeaders, cap: number, messages: { mediaType: string; tooLarge?: string }): void {
  if (!isJson(headers.contentType)) throw new IngestError('unsupported_media_type', { message: messages.mediaType })
  if (headers.encoding !== '' && headers.encoding !== 'identity' && headers.encoding !== 'gzip') throw new IngestError('unsupported_encoding')
  if (headers.declaredLength > cap) throw new IngestError('payload_too_large', messages.tooLarge ? { message: messages.tooLarge } : {})
}

function isJson(contentType: string): boolean {
  if (contentType === 'application/json') return true // what SDKs send: no split, trim or copy
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase()
  return type === 'application/json'
}
