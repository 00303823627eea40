/**
 * The Sentry SDKs' ingestion routes: POST /api/<project>/envelope/ and /api/<project>/store/, so a
 * team moves from Sentry by changing its DSN (docs/sentry-sdk.md). A request is read and refused
 * like one to /api/v1/events (body cap, key, per-key limit, project cap); its event is translated
 * to ours and goes through the same accept path onto the same stream. Items we do not keep are
 * taken (200, so the SDK does not resend them) and counted.
 */
import type uWS from 'uWebSockets.js'
import { BodyError } from '../../../shared/http/errors.js'
import { exchange, readBodyBytes, send, type Exchange } from '../../../shared/http/exchange.js'
import { readQuery } from '../../../shared/http/request-text.js'
import { acceptBuiltEvent, requireIngestKey, type IngestDeps, type IngestKey } from '../accept-event.js'
import { ingestBodyError, IngestError } from '../errors.js'
import { countAccepted, countRefused } from '../metrics.js'
import { checkProjectSegment, keyFromAuthHeader, keyFromDsn, SENTRY_KEY_MESSAGES } from './auth.js'
import { decompressBody, isSentryEncoding, SENTRY_ENCODINGS } from './decompress.js'
import { jsonObject, parseEnvelope } from './envelope.js'
import { countDroppedItem } from './metrics.js'
import { rateLimitHeaders } from './rate-limits.js'
import { sentryEventId, translateEvent } from './translate.js'
import { isObject } from './values.js'

/** What the browser SDK may send cross-origin (tracing headers ride along on its own requests). */
const PREFLIGHT: ReadonlyArray<[string, string]> = [
  ['Access-Control-Allow-Methods', 'POST, OPTIONS'],
  ['Access-Control-Allow-Headers', 'Content-Type, Content-Encoding, X-Sentry-Auth, sentry-trace, baggage'],
  ['Access-Control-Max-Age', '86400'],
]

/** What the routes need: the events route's accept path, its body cap, and the in-flight count. */
export interface SentryRouteDeps extends IngestDeps {
  maxEventBytes: number
  /** Counts a request in flight, so a graceful stop lets it answer. */
  track(work: Promise<void>): void
}

type Kind = 'envelope' | 'store'

/** What a request says before its body: read at once, as uWS keeps it only until the first await. */
interface SentryRequest {
  kind: Kind
  project: string
  /** The key from X-Sentry-Auth or ?sentry_key=; the envelope's dsn is read later. */
  token: string | undefined
  encoding: string
  declaredLength: number
}

/** Registers POST and OPTIONS for /api/:project/envelope/ and /api/:project/store/ (with or without the slash). */
export function registerSentryRoutes(app: uWS.TemplatedApp, deps: SentryRouteDeps): void {
  for (const kind of ['envelope', 'store'] as const) {
    for (const path of [`/api/:project/${kind}/`, `/api/:project/${kind}`]) {
      app.options(path, (res) => send(exchange(res), 204, undefined, PREFLIGHT))
      app.post(path, (res, req) => {
        const started = performance.now()
        const ex = exchange(res)
        const request = readRequest(kind, req)
        // uWS hands body chunks only to a reader attached before the first await; start it now.
        const reading = readBodyBytes(ex, deps.maxEventBytes, false)
        reading.catch(() => {}) // observed below, unless the key fails first
        deps.track(
          handle(ex, deps, request, reading).then(
            (queued) => void (queued && countAccepted(started)),
            (error: unknown) => refuse(ex, deps, started, error),
          ),
        )
      })
    }
  }
}

/** Reads, authenticates and takes one request; resolves true when an event was queued. */
async function handle(ex: Exchange, deps: SentryRouteDeps, request: SentryRequest, reading: ReturnType<typeof readBodyBytes>): Promise<boolean> {
  const encoding = request.encoding
  if (!isSentryEncoding(encoding)) throw new IngestError('unsupported_encoding', { message: `Content-Encoding must be one of ${SENTRY_ENCODINGS.filter(Boolean).join(', ')}, or absent.` })
  if (request.declaredLength > deps.maxEventBytes) throw new IngestError('payload_too_large')
  // A key in the header or query is checked while the body arrives.
  const early = request.token === undefined ? undefined : requireIngestKey(deps, request.token, SENTRY_KEY_MESSAGES)
  early?.catch(() => {}) // observed below
  if (early) checkProjectSegment(request.project, await early)
  const badBody = (message: string): IngestError => new IngestError(request.kind === 'envelope' ? 'invalid_envelope' : 'invalid_json', { message })
  const { wire } = await reading
  const body = await decompressBody(wire, encoding, deps.maxEventBytes, badBody)
  const receivedAt = Date.now()
  if (request.kind === 'store') {
    if (!early) throw new IngestError('key_missing', { message: SENTRY_KEY_MESSAGES.key_missing })
    const key = await early
    const event = parseStoreBody(body)
    const id = await accept(deps, key, event, receivedAt)
    send(ex, 200, JSON.stringify({ id }))
    return true
  }
  const envelope = parseEnvelope(body)
  const key = early ? await early : await requireIngestKey(deps, keyFromDsn(envelope.header.dsn), SENTRY_KEY_MESSAGES)
  if (!early) checkProjectSegment(request.project, key)
  const events = envelope.items.filter((item) => item.type === 'event')
  if (events.length > 1) throw new IngestError('invalid_envelope', { message: 'The envelope has more than one event item. Send one event per envelope.' })
  // The header's id is the sender's text: echoed only when it is an event id.
  const headerId = sentryEventId(envelope.header)?.replaceAll('-', '')
  const event = events.length === 0 ? undefined : jsonObject(events[0]!.payload, 'The event item')
  const id = event ? await accept(deps, key, event, receivedAt) : headerId
  // Counted once the envelope is taken: a refused one is sent again, and counted then.
  for (const item of envelope.items) if (item.type !== 'event') countDroppedItem(item.type)
  send(ex, 200, JSON.stringify(id === undefined ? {} : { id }))
  return event !== undefined
}

/** Translates, validates and queues a Sentry event; resolves with the id Sentry's answer carries. */
async function accept(deps: SentryRouteDeps, key: IngestKey, event: Record<string, unknown>, receivedAt: number): Promise<string> {
  const queued = await acceptBuiltEvent(deps, key, translateEvent(event, receivedAt))
  // Sentry answers with the sender's id, without hyphens; ours is derived from it per project.
  return sentryEventId(event)?.replaceAll('-', '') ?? queued.replaceAll('-', '')
}

/** A /store/ body: one JSON event object. The key must have come in the header or query. */
function parseStoreBody(body: Buffer): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(body.toString('utf8'))
  } catch {
    throw new IngestError('invalid_json')
  }
  if (!isObject(value)) throw new IngestError('invalid_event', { field: '(body)', message: 'The body is not a JSON object. Send the event as the SDK wrote it.' })
  return value
}

function readRequest(kind: Kind, req: uWS.HttpRequest): SentryRequest {
  const query = readQuery(req.getQuery())
  return {
    kind,
    project: req.getParameter(0) ?? '',
    token: keyFromAuthHeader(req.getHeader('x-sentry-auth')) ?? (query.get('sentry_key') || undefined),
    encoding: req.getHeader('content-encoding').trim().toLowerCase(),
    declaredLength: Number(req.getHeader('content-length') || 0),
  }
}

/** Answers a failure with our catalogued body, plus the rate-limit headers the SDKs back off by. */
function refuse(ex: Exchange, deps: SentryRouteDeps, started: number, error: unknown): void {
  const answer = error instanceof IngestError ? error : error instanceof BodyError ? ingestBodyError(error) : internal(deps, error)
  countRefused(answer.code, started)
  send(ex, answer.status, JSON.stringify(answer.toBody()), rateLimitHeaders(answer))
}

function internal(deps: SentryRouteDeps, error: unknown): IngestError {
  deps.log.error('sentry route failed', { error })
  return new IngestError('internal_error')
}
