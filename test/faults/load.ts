/**
 * Steady load for the fault suite: events POSTed at a fixed rate, each carrying a unique marker (its
 * session id), sent once and never retried, so every marker stored is one the service accepted or
 * one whose answer the fault cut off. node:http with keep-alive, as an SDK's page would hold its
 * connection; a request unanswered for 10 s counts as failed.
 */
import http from 'node:http'
import { randomBytes } from 'node:crypto'
import { sampleEvent } from '../helpers/stack.js'

export interface LoadReport {
  /** Markers answered 202, with when the answer came (ms epoch). */
  accepted: Map<string, number>
  /** Markers sent whose answer was a refusal (by status) or a failure (by error). */
  refused: Map<string, number>
  /** Markers answered with a status other than 202: the service said nothing was stored. */
  declined: string[]
  /** Every marker sent. */
  sent: string[]
}

export interface SteadyLoad {
  /** Markers answered 202 so far. */
  acceptedSoFar(): number
  /** Stops sending and resolves once every request sent is answered or has failed. */
  stop(): Promise<LoadReport>
}

/** A handful of distinct errors, so the load spreads over several issues as real traffic does. */
const ERRORS = ['renderCart', 'loadProfile', 'submitOrder', 'formatPrice', 'openDialog'].map((fn, i) => ({
  type: i % 2 ? 'TypeError' : 'RangeError',
  message: `fault suite error ${i} in ${fn}`,
  stack: `Error: fault suite error ${i}\n    at ${fn} (http://localhost:5173/assets/index-f4u1t.js:${10 + i}:7)\n    at onClick (http://localhost:5173/assets/index-f4u1t.js:90:3)`,
}))

/** Starts sending rate events a second to base's ingestion endpoint with key. */
export function startSteadyLoad(base: string, key: string, rate: number): SteadyLoad {
  const run = randomBytes(4).toString('hex')
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 })
  const target = new URL('/api/v1/events', base)
  const report: LoadReport = { accepted: new Map(), refused: new Map(), declined: [], sent: [] }
  const inFlight = new Set<Promise<void>>()
  const refuse = (reason: string): void => {
    report.refused.set(reason, (report.refused.get(reason) ?? 0) + 1)
  }
  const send = (marker: string, i: number): Promise<void> =>
    new Promise<void>((resolve) => {
      const body = JSON.stringify(sampleEvent({ session_id: marker, error: ERRORS[i % ERRORS.length] }))
      const headers = { 'Content-Type': 'application/json', 'X-API-Key': key, 'Content-Length': Buffer.byteLength(body) }
      const req = http.request({ agent, host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers, timeout: 10_000 }, (res) => {
        res.resume()
        res.on('end', () => {
          if (res.statusCode === 202) report.accepted.set(marker, Date.now())
          else {
            refuse(`status ${res.statusCode}`)
            report.declined.push(marker)
          }
          resolve()
        })
      })
      req.on('timeout', () => req.destroy(new Error('no answer within 10 s')))
      req.on('error', (error: NodeJS.ErrnoException) => {
        refuse(error.code ?? error.message)
        resolve()
      })
      req.end(body)
    })
  let stopped = false
  const started = performance.now()
  const loop = (async () => {
    for (let i = 0; !stopped; i++) {
      const wait = started + (i * 1000) / rate - performance.now()
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait))
      if (stopped) break
      const marker = `fault-${run}-${i}`
      report.sent.push(marker)
      const request = send(marker, i)
      inFlight.add(request)
      void request.then(() => inFlight.delete(request))
    }
  })()
  return {
    acceptedSoFar: () => report.accepted.size,
    async stop() {
      stopped = true
      await loop
      await Promise.all(inFlight)
      agent.destroy()
      return report
    },
  }
}

/** Resolves after ms. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
