/**
 * The one uWS app `svc ingress` serves on INGESTION_PORT: /health, /metrics, CORS preflight, the ingestion
 * routes (services/ingress/), the web routes (services/web/), and a JSON 404 for anything else.
 * Built here and listened on elsewhere, so tests can start it on any port.
 */
import uWS from 'uWebSockets.js'
import { exchange, PREFLIGHT_HEADERS, send, sendError, sendText } from '../../shared/http/exchange.js'
import { METRICS_CONTENT_TYPE } from '../../shared/metrics.js'
import { IngestError } from '../../services/ingress/errors.js'
import { registerIngestRoutes, type IngestRouteDeps } from '../../services/ingress/index.js'
import { registerWebRoutes, type WebRouteDeps } from '../../services/web/index.js'

export interface FrontApp {
  listen(port: number, host: string): Promise<number>
  /**
   * Stops accepting, lets requests in flight get their answers (up to graceMs), then closes every
   * connection: an idle keep-alive client must not hold the process open.
   */
  close(graceMs?: number): Promise<void>
}

export interface FrontAppDeps {
  ingest: Omit<IngestRouteDeps, 'track' | 'inFlight'>
  web: Omit<WebRouteDeps, 'track'>
  /** How often a supervisor (svc up) restarted this process; shown by /health. */
  restarts: number
  /** The process's metrics in the text format, for GET /metrics; absent, /metrics is not served (SVC_INGRESS_METRICS=off). */
  metrics?: () => Promise<string>
}

/** Registers every route on a new uWS app. */
export function createFrontApp(deps: FrontAppDeps): FrontApp {
  const app = uWS.App()
  let socket: uWS.us_listen_socket | undefined
  let inFlight = 0
  const track = (work: Promise<void>): void => {
    inFlight++
    void work.finally(() => inFlight--)
  }
  // The same count without a promise, for the events route's hot path.
  const counted = {
    enter: (): void => void inFlight++,
    leave: (): void => void inFlight--,
  }

  app.get('/health', (res) => {
    const ex = exchange(res)
    send(ex, 200, JSON.stringify({ status: 'ok', service: 'svc-ingress', restarts: deps.restarts }))
  })

  const scrape = deps.metrics
  if (scrape) {
    app.get('/metrics', (res) => {
      const ex = exchange(res)
      track(scrape().then(
        (text) => sendText(ex, 200, text, METRICS_CONTENT_TYPE),
        (error: Error) => sendText(ex, 503, `metrics unavailable: ${error.message}\n`, 'text/plain; charset=utf-8'),
      ))
    })
  }

  app.options('/*', (res) => {
    const ex = exchange(res)
    send(ex, 204, undefined, PREFLIGHT_HEADERS)
  })

  registerIngestRoutes(app, { ...deps.ingest, track, inFlight: counted })
  registerWebRoutes(app, { ...deps.web, track })

  // Whatever neither side claimed: the ingestion catalogue's not_found, which names the events route.
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
