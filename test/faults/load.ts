/**
 * Steady load for the fault suite: events POSTed at a fixed rate, each carrying a unique marker (its
 * session id) and an event_id, as the SDK sends them. One refused or cut off during the fault is
 * sent again afterwards with the same body, as the SDK's queue does, until it is accepted: so the
 * suite sees what a user's events go through, lost answers included. node:http with keep-alive, as
 * a page holds its connection; a request unanswered for 10 s counts as failed.
 */
import http from 'node:http'
import { randomBytes, randomUUID } from 'node:crypto'
import { sampleEvent } from '../helpers/stack.js'
import { patience } from '../helpers/patience.js'

export interface LoadReport {
  /** Markers answered 202 (on the first send or a resend), with when (ms epoch). */
  accepted: Map<string, number>
  /** First sends that were refused (by status) or failed (by error), by reason. */
  refused: Map<string, number>
  /** Markers sent again after the load, because their first send was refused or failed. */
  resent: number
  /** Markers still not accepted when resending gave up. */
  unaccepted: string[]
  /** Every marker sent. */
  sent: string[]
}

export interface SteadyLoad {
  /** Markers answered 202 so far. */
  acceptedSoFar(): number
  /**
   * Stops sending, waits for every request in flight, then sends the refused and failed events
   * again (up to patience(withinMs), every half second) until each is accepted.
   */
  stop(withinMs?: number): Promise<LoadReport>
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
  const report: LoadReport = { accepted: new Map(), refused: new Map(), resent: 0, unaccepted: [], sent: [] }
  const bodies = new Map<string, string>()
  const inFlight = new Set<Promise<boolean>>()
  /** Resolves true when the event was accepted; a first send's refusal is counted by reason. */
  const send = (marker: string, first: boolean): Promise<boolean> =>
    new Promise<boolean>((resolve) => {
      const body = bodies.get(marker)!
      const refuse = (reason: string): void => {
        if (first) report.refused.set(reason, (report.refused.get(reason) ?? 0) + 1)
        resolve(false)
      }
      const headers = { 'Content-Type': 'application/json', 'X-API-Key': key, 'Content-Length': Buffer.byteLength(body) }
      const req = http.request({ agent, host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers, timeout: 10_000 }, (res) => {
        res.resume()
        res.on('end', () => {
          if (res.statusCode !== 202) return refuse(`status ${res.statusCode}`)
          report.accepted.set(marker, Date.now())
          resolve(true)
        })
      })
      req.on('timeout', () => req.destroy(new Error('no answer within 10 s')))
      req.on('error', (error: NodeJS.ErrnoException) => refuse(error.code ?? error.message))
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
      bodies.set(marker, JSON.stringify(sampleEvent({ session_id: marker, event_id: randomUUID(), error: ERRORS[i % ERRORS.length] })))
      report.sent.push(marker)
      const request = send(marker, true)
      inFlight.add(request)
      void request.then(() => inFlight.delete(request))
    }
  })()
  return {
    acceptedSoFar: () => report.accepted.size,
    async stop(withinMs = 30_000) {
      stopped = true
      await loop
      await Promise.all(inFlight)
      let waiting = report.sent.filter((marker) => !report.accepted.has(marker))
      report.resent = waiting.length
      const deadline = Date.now() + patience(withinMs)
      while (waiting.length > 0 && Date.now() < deadline) {
        for (let i = 0; i < waiting.length; i += 32) await Promise.all(waiting.slice(i, i + 32).map((marker) => send(marker, false)))
        waiting = waiting.filter((marker) => !report.accepted.has(marker))
        if (waiting.length > 0) await sleep(500)
      }
      report.unaccepted = waiting
      agent.destroy()
      return report
    },
  }
}

/** Resolves after ms. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
