/**
 * The worker's /health: a text body with status (ok; stalled when work is eligible and nothing
 * starts it; waiting when a service holds its work because what it depends on is down), queue_depth
 * split into eligible now and held back by retry backoff, and how often a supervisor restarted
 * this process. Beside it on the same port, /metrics: the process's metrics (docs/metrics.md).
 */
import { createServer, type Server } from 'node:http'
import { METRICS_CONTENT_TYPE, scrapeMetrics } from '../../shared/metrics.js'
import type { HostedService } from '../../shared/service.js'
import { SECOND } from '../../shared/time.js'

/** A consumer that has not turned its loop for this long, with work waiting, counts as stalled. */
export const STALL_AFTER = 30 * SECOND

export type HealthStatus = 'ok' | 'waiting' | 'stalled'

export interface HealthReport {
  status: HealthStatus
  text: string
}

const SEVERITY: Record<HealthStatus, number> = { ok: 0, waiting: 1, stalled: 2 }

/** Builds the health report for the hosted services; restarts is how often a supervisor restarted this process. */
export async function healthReport(services: readonly HostedService[], now = Date.now(), restarts = 0): Promise<HealthReport> {
  let eligible = 0
  let heldBack = 0
  let status: HealthStatus = 'ok'
  const lines: string[] = []
  for (const service of services) {
    const depth = await service.depth()
    eligible += depth.eligible
    heldBack += depth.heldBack
    const waiting = service.waitingFor()
    let own: HealthStatus = 'ok'
    // A service waiting out an outage is alive and will resume by itself: not stalled.
    if (waiting) own = 'waiting'
    else if (depth.eligible > 0) {
      const localStuck = now - service.lastProgressAt() > STALL_AFTER
      if (localStuck || (await service.fleetIdleMs()) > STALL_AFTER) own = 'stalled'
    }
    if (SEVERITY[own] > SEVERITY[status]) status = own
    const why = waiting ? ` waiting_for=${waiting.what} down_for=${Math.round((now - waiting.since) / 1000)}s` : ''
    lines.push(`service ${service.name}: ${own} eligible=${depth.eligible} held_back=${depth.heldBack} dead_lettered=${depth.deadLettered}${why}`)
    // Details are extras: a dependency that is down (the database) must not hide the status above.
    if (service.details) lines.push(...(await service.details().catch((error: Error) => [`service ${service.name}: details unavailable (${error.message})`])))
  }
  const text = [`status: ${status}`, `queue_depth: eligible=${eligible} held_back=${heldBack}`, `restarts: ${restarts}`, ...lines].join('\n') + '\n'
  return { status, text }
}

/** Serves GET /health (200 when ok, 503 when waiting, stalled or unreadable, so orchestrators see it) and GET /metrics. */
export function startHealthServer(services: readonly HostedService[], port: number, host = '0.0.0.0', restarts = 0): Promise<Server> {
  const server = createServer((req, res) => {
    const path = req.url?.split('?')[0]
    if (req.method === 'GET' && path === '/metrics') {
      scrapeMetrics().then(
        (text) => res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(text),
        (error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics unavailable: ${error.message}\n`),
      )
      return
    }
    if (req.method !== 'GET' || path !== '/health') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /health or GET /metrics\n')
      return
    }
    healthReport(services, Date.now(), restarts).then(
      (report) => res.writeHead(report.status === 'ok' ? 200 : 503, { 'content-type': 'text/plain' }).end(report.text),
      (error: Error) => res.writeHead(503, { 'content-type': 'text/plain' }).end(`status: unavailable\nerror: ${error.message}\n`),
    )
  })
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new Error(`Worker health port ${port} is taken. Set WORKER_HEALTH_PORT to a free port.`) : error),
    )
    server.listen(port, host, () => resolve(server))
  })
}
