/**
 * The ingress HTTP app: routes only, each parsing the request, calling a use case and mapping the
 * result to a status. Built here and listened on elsewhere, so tests can start it on any port.
 */
import uWS from 'uWebSockets.js'
import type { Db } from '../../shared/db.js'
import type { ObjectStore } from '../../shared/object-store.js'
import { acceptEvent, KEY_CHECK_RETRY_AFTER, requireIngestKey, type IngestDeps } from './accept-event.js'
import { ingestBodyError, IngestError, UPLOAD_KEY_MESSAGES } from './errors.js'
import { uploadSourceMap } from './upload-sourcemap.js'
import { registerAgentRoutes } from '../web/agent-routes.js'
import type { DashboardDeps } from '../web/dashboard/deps.js'
import { registerDashboardRoutes } from '../web/dashboard/routes.js'
import type { SdkSeen } from '../web/sdk-seen.js'
import type { SetupDeps } from '../web/setup/sessions.js'
import type { WakeHub } from '../web/setup/wake-hub.js'
import { BodyError } from '../../shared/http/errors.js'
import { exchange, PREFLIGHT_HEADERS, readBodyText, send, sendError, type Exchange } from '../../shared/http/exchange.js'

export interface IngressApp {
  listen(port: number, host: string): Promise<number>
  /**
   * Stops accepting, lets requests in flight get their answers (up to graceMs), then closes every
   * connection: an idle keep-alive client must not hold the process open.
   */
  close(graceMs?: number): Promise<void>
}

export interface IngressDeps extends IngestDeps {
  maxEventBytes: number
  uploads: { db: Db; objects: ObjectStore; maxBytes: number }
  setup: SetupDeps
  hub: WakeHub
  sdkSeen: SdkSeen
  dashboard: Pick<DashboardDeps, 'dashboardOrigin' | 'secureCookies' | 'redisKeyPrefix'>
  /** Trusted proxies in front: per-address limits read the client from X-Forwarded-For. */
  proxyHops: number
  /** How often a supervisor (svc up) restarted this process; shown by /health. */
  restarts: number
}

/** Registers every route on a new uWS app. */
export function createIngressApp(deps: IngressDeps): IngressApp {
  const app = uWS.App()
  let socket: uWS.us_listen_socket | undefined
  let inFlight = 0
  const track = (work: Promise<void>): void => {
    inFlight++
    void work.finally(() => inFlight--)
  }

  app.get('/health', (res) => {
    const ex = exchange(res)
    send(ex, 200, JSON.stringify({ status: 'ok', service: 'svc-ingress', restarts: deps.restarts }))
  })

  app.options('/*', (res) => {
    const ex = exchange(res)
    send(ex, 204, undefined, PREFLIGHT_HEADERS)
  })

  app.post('/api/v1/events', (res, req) => {
    const ex = exchange(res)
    const body = bodyHeaders(req)
    track(handle(ex, deps, async () => {
      checkBodyHeaders(body, deps.maxEventBytes, { mediaType: 'Send the event with Content-Type: application/json.' })
      // A key seen recently is answered from memory; otherwise its lookup overlaps the body.
      const known = deps.auth.cached(body.token, 'ingest')
      const [key, text] = known?.ok
        ? [known, await readBodyText(ex, deps.maxEventBytes, body.gzipped)]
        : await Promise.all([requireIngestKey(deps, body.token), readBodyText(ex, deps.maxEventBytes, body.gzipped)])
      const id = await acceptEvent(deps, key, text)
      send(ex, 202, JSON.stringify({ id }))
    }))
  })

  app.post('/api/v1/ingest/ping', (res, req) => {
    const ex = exchange(res)
    const token = req.getHeader('x-api-key') || undefined
    // Browsers send Origin on every POST; curl and server-side checks do not. A browser's ping is
    // the SDK having loaded in a page: the app_reporting signal of setup sessions.
    const fromBrowser = req.getHeader('origin') !== ''
    res.onData(() => {}) // a ping has no body; drain anything sent
    track(handle(ex, deps, async () => {
      const key = await requireIngestKey(deps, token)
      if (fromBrowser) deps.sdkSeen.note(key.projectId)
      send(ex, 204, undefined)
    }))
  })

  app.post('/api/v1/sourcemaps', (res, req) => {
    const ex = exchange(res)
    const body = bodyHeaders(req)
    const query = new URLSearchParams(req.getQuery() ?? '')
    const target = { path: query.get('path') ?? undefined, release: query.get('release') ?? undefined, debugId: req.getHeader('x-svc-debug-id') || undefined }
    const cap = deps.uploads.maxBytes
    const tooLarge = `The source map is over ${cap / 1024 / 1024} MiB (counted after decompression). Upload it without inlined sources, or split the bundle.`
    track(handle(ex, deps, async () => {
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
      send(ex, 201, JSON.stringify(stored))
    }))
  })

  registerAgentRoutes(app, { setup: deps.setup, hub: deps.hub, track, proxyHops: deps.proxyHops })
  registerDashboardRoutes(app, { ...deps.dashboard, setup: deps.setup, log: deps.log, baseUrl: deps.setup.baseUrl, codehost: deps.setup.codehost, track, proxyHops: deps.proxyHops })

  app.any('/*', (res) => {
    const ex = exchange(res)
    sendError(ex, new IngestError('not_found'))
  })

  return {
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        app.listen(host, port, (listenSocket) => {
          if (!listenSocket) return reject(new Error(`Port ${port} on ${host} is taken. Stop what holds it or set INGESTION_PORT to a free port.`))
          socket = listenSocket
          resolve(uWS.us_socket_local_port(listenSocket))
        })
      }),
    close: async (graceMs = 5000) => {
      if (socket) uWS.us_listen_socket_close(socket)
      socket = undefined
      const deadline = Date.now() + graceMs
      while (inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
      // Present on every uWS App at run time; missing from its type declarations.
      ;(app as unknown as { close(): void }).close()
    },
  }
}

/** Runs a route body, turning any failure into a catalogued answer; never lets one escape. */
function handle(ex: Exchange, deps: IngestDeps, body: () => Promise<void>): Promise<void> {
  return body().catch((error: unknown) => {
    if (error instanceof IngestError) return sendError(ex, error)
    if (error instanceof BodyError) return sendError(ex, ingestBodyError(error))
    deps.log.error('ingress route failed', { error })
    sendError(ex, new IngestError('internal_error'))
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
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase()
  return type === 'application/json'
}
