/**
 * Small uWebSockets.js helpers for every route on the port (ingestion and web alike): read a capped
 * body, answer JSON. uWS requires every write after an await to be corked and forbids touching an
 * aborted response, so all answers go through here.
 */
import { gunzip } from 'node:zlib'
import { promisify } from 'node:util'
import type { HttpResponse } from 'uWebSockets.js'
import { BodyError, type CataloguedError } from './errors.js'

const gunzipAsync = promisify(gunzip)

const TOO_LARGE = 'The body is over its size cap.'
/** Sent as the message of the 400 that ingestion and setup sessions answer with. */
const NOT_GZIP = 'The body is marked gzip but does not decompress. Send valid gzip or drop Content-Encoding.'

/** Response plus the abort flag uWS needs us to track ourselves. */
export interface Exchange {
  res: HttpResponse
  aborted: boolean
  /** Called once if the client goes away before the answer: a held long poll frees its place. */
  onAbort?: () => void
}

/** Wraps a response and registers the abort handler uWS requires before any async step. */
export function exchange(res: HttpResponse): Exchange {
  const ex: Exchange = { res, aborted: false }
  res.onAborted(() => {
    ex.aborted = true
    ex.onAbort?.()
  })
  return ex
}

/**
 * CORS for browser SDKs: any origin, never credentials (the SDK omits them). A preflight answer
 * carries the whole policy; an actual answer needs only the origin grant, plus Retry-After exposed
 * where it is sent. Every header is a native call, and on a 2 KB event they added up.
 */
export const PREFLIGHT_HEADERS: ReadonlyArray<[string, string]> = [
  ['Access-Control-Allow-Methods', 'GET, POST, OPTIONS'],
  ['Access-Control-Allow-Headers', 'Content-Type, Content-Encoding, X-API-Key'],
  ['Access-Control-Max-Age', '86400'],
]

/** Writes a complete answer unless the client went away. */
export function send(ex: Exchange, status: number, body: string | undefined, headers: ReadonlyArray<[string, string]> = []): void {
  if (ex.aborted) return
  ex.aborted = true // one answer per exchange
  ex.res.cork(() => {
    ex.res.writeStatus(statusLine(status))
    ex.res.writeHeader('Access-Control-Allow-Origin', '*')
    for (const [name, value] of headers) ex.res.writeHeader(name, value)
    if (body === undefined) {
      ex.res.endWithoutBody()
    } else {
      ex.res.writeHeader('Content-Type', 'application/json')
      ex.res.end(body)
    }
  })
}

/** Writes a complete plain-text answer (not JSON) with its content type, unless the client went away. */
export function sendText(ex: Exchange, status: number, body: string, contentType: string): void {
  if (ex.aborted) return
  ex.aborted = true
  ex.res.cork(() => {
    ex.res.writeStatus(statusLine(status))
    ex.res.writeHeader('Content-Type', contentType)
    ex.res.end(body)
  })
}

/** Answers with a catalogued error. */
export function sendError(ex: Exchange, error: CataloguedError): void {
  const headers: Array<[string, string]> = []
  if (error.detail.retryAfter !== undefined) headers.push(['Retry-After', String(error.detail.retryAfter)], ['Access-Control-Expose-Headers', 'Retry-After'])
  send(ex, error.status, JSON.stringify(error.toBody()), headers)
}

/**
 * Reads the whole body as UTF-8 text, at most cap bytes on the wire and, when gzipped, at most cap
 * bytes after decompression (decompression bombs were real CVEs elsewhere). Rejects with BodyError,
 * which the caller answers from its own catalogue.
 */
export function readBodyText(ex: Exchange, cap: number, gzipped: boolean): Promise<string> {
  return new Promise<string>((resolve, reject) => readBodyTextThen(ex, cap, gzipped, resolve, reject))
}

/**
 * readBodyText without a promise, for a hot path: calls done with the text, or fail with the
 * BodyError, once. Attach it before anything asynchronous, as readBodyText.
 */
export function readBodyTextThen(ex: Exchange, cap: number, gzipped: boolean, done: (text: string) => void, fail: (error: BodyError) => void): void {
  readBody(ex, cap, fail, (wire, lent) => {
    if (!gzipped) return done(wire.toString('utf8'))
    inflate(lent ? Buffer.from(wire) : wire, cap).then((inflated) => done(inflated.toString('utf8')), fail)
  })
}

/** A body as bytes: as it came on the wire, and inflated when it was gzipped (else the same buffer). */
export interface BodyBytes {
  wire: Buffer
  inflated: Buffer
}

/**
 * Reads the whole body as bytes, capped as readBodyText caps it, for a route that keeps what it
 * was sent (a recording chunk keeps its gzip). Inflating stops at the cap: a decompression bomb
 * is refused after at most cap bytes of output, not inflated whole.
 */
export function readBodyBytes(ex: Exchange, cap: number, gzipped: boolean): Promise<BodyBytes> {
  return new Promise<BodyBytes>((resolve, reject) => {
    readBody(ex, cap, reject, (lentOrOwn, lent) => {
      const wire = lent ? Buffer.from(lentOrOwn) : lentOrOwn
      if (!gzipped) return resolve({ wire, inflated: wire })
      inflate(wire, cap).then((inflated) => resolve({ wire, inflated }), reject)
    })
  })
}

/**
 * Collects a body of at most cap bytes on the wire and calls whole with it once it has all come.
 * uWS reuses a chunk's memory after its callback returns, so a body that arrives in one piece is
 * lent (lent: true; whole must copy what it keeps past its own return) and anything else is copied.
 * Once answered (say, a bad key) or aborted, the rest of the body is not kept.
 */
function readBody(ex: Exchange, cap: number, reject: (error: BodyError) => void, whole: (wire: Buffer, lent: boolean) => void): void {
  const chunks: Buffer[] = []
  let size = 0
  let failed = false
  ex.res.onData((chunk, isLast) => {
    if (failed || ex.aborted) return
    size += chunk.byteLength
    if (size > cap) {
      failed = true
      reject(new BodyError('too_large', TOO_LARGE))
      return
    }
    if (isLast && chunks.length === 0) return whole(Buffer.from(chunk), true)
    chunks.push(Buffer.from(chunk.slice(0)))
    if (isLast) whole(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), false)
  })
}

/** Gunzips at most cap bytes of output; rejects with BodyError (too_large, or not_gzip for anything that is not whole gzip). */
function inflate(raw: Buffer, cap: number): Promise<Buffer> {
  return gunzipAsync(raw, { maxOutputLength: cap }).catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'ERR_BUFFER_TOO_LARGE' ? new BodyError('too_large', TOO_LARGE) : new BodyError('not_gzip', NOT_GZIP)
  })
}

/** The status line for code ("404 Not Found"), for the JSON API and the dashboard alike; an unlisted code goes out bare. */
export function statusLine(code: number): string {
  return STATUS_LINES[code] ?? String(code)
}

const STATUS_LINES: Readonly<Record<number, string>> = {
  200: '200 OK',
  201: '201 Created',
  202: '202 Accepted',
  204: '204 No Content',
  302: '302 Found',
  303: '303 See Other',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  403: '403 Forbidden',
  404: '404 Not Found',
  409: '409 Conflict',
  410: '410 Gone',
  413: '413 Payload Too Large',
  415: '415 Unsupported Media Type',
  422: '422 Unprocessable Entity',
  429: '429 Too Many Requests',
  500: '500 Internal Server Error',
  503: '503 Service Unavailable',
}

/**
 * The client's address for per-address limits. Behind proxies that append to X-Forwarded-For,
 * the peer is the nearest proxy: with hops trusted proxies in front, the client is the entry the
 * farthest trusted one appended (counted from the right; entries further left are the client's
 * own word). Without trusted proxies the header is ignored, since anyone can send it.
 */
export function clientAddress(res: HttpResponse, forwardedFor: string, hops: number): string {
  const peer = Buffer.from(res.getRemoteAddressAsText()).toString('utf8')
  if (hops <= 0 || forwardedFor === '') return peer
  const chain = forwardedFor.split(',').map((part) => part.trim()).filter(Boolean)
  return chain[chain.length - hops] ?? chain[0] ?? peer
}
