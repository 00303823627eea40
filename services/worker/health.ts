/**
 * The worker's /health: a text body with status (ok, or stalled when work is eligible and nothing
 * starts it) and queue_depth split into eligible now and held back by retry backoff.
 */
import { createServer, type Server } from 'node:http'
import type { HostedService } from '../../shared/service.js'
import { SECOND } from '../../shared/time.js'

/** A consumer that has not turned its loop for this long, with work waiting, counts as stalled. */
export const STALL_AFTER = 30 * SECOND

export interface HealthReport {
  status: 'ok' | 'stalled'
  text: string
}

/** Builds the health report for the hosted services. */
export async function healthReport(services: readonly HostedService[], now = Date.now()): Promise<HealthReport> {
  let eligible = 0
  let heldBack = 0
  let stalled = false
  const lines: string[] = []
  for (const service of services) {
    const depth = await service.depth()
    eligible += depth.eligible
    heldBack += depth.heldBack
    const localStuck = now - service.lastProgressAt() > STALL_AFTER
    const fleetIdle = depth.eligible > 0 ? await service.fleetIdleMs() : 0
    const serviceStalled = depth.eligible > 0 && (localStuck || fleetIdle > STALL_AFTER)
    stalled ||= serviceStalled
    lines.push(`service ${service.name}: ${serviceStalled ? 'stalled' : 'ok'} eligible=${depth.eligible} held_back=${depth.heldBack} dead_lettered=${depth.deadLettered}`)
  }
  const status = stalled ? 'stalled' : 'ok'
  const text = [`status: ${status}`, `queue_depth: eligible=${eligible} held_back=${heldBack}`, ...lines].join('\n') + '\n'
  return { status, text }
}

/** Serves GET /health; 200 when ok, 503 when stalled or unreadable, so orchestrators see it. */
export function startHealthServer(services: readonly HostedService[], port: number, host = '0.0.0.0'): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/health') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /health\n')
      return
    }
    healthReport(services).then(
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
