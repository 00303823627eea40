/**
 * bench:ingest's Sentry side: the same 1,000 realistic events (bench/load/events.ts) as
 * @sentry/browser 11 sends them (test/helpers/browser/sentry.ts: an envelope of one event item, posted as
 * text/plain with the key in the query), wrk-driven at POST /api/<DSN number>/envelope/ in the
 * rounds that measure /api/v1/events, so the two routes' rates are compared side by side.
 */
import type { Redis } from 'ioredis'
import type { Queryable } from '../../shared/db/index.js'
import { readDsnNumber } from '../../services/web/projects/dsn.js'
import { browserEvent, envelopePath, eventEnvelope } from '../../test/helpers/browser/sentry.js'
import { realisticEvent } from './events.js'
import { cpuMicros } from './process-tree.js'
import { median } from './stats.js'
import { acceptedOf, runWrk, writeLoads, type WrkResult } from './wrk.js'

/** One frame of realisticEvent's stack text: "    at fn3_0 (https://…/cart-4f3a9c2b.js:100:23)". */
const FRAME = /^\s+at (\S+) \((.+):(\d+):(\d+)\)$/

export interface EnvelopeLoad {
  /** The envelope route the SDK would post to, key and version in the query. */
  url: string
  /** wrk's script cycling through the envelopes. */
  script: string
  /** Bytes of the first envelope. */
  bytes: number
  remove(): void
}

/** One measured round: wrk's figures, the stream entries it added, the ingress's CPU it took. */
export interface EnvelopeRound {
  wrk: WrkResult
  entries: number
  cpuMicros: number
}

/**
 * The n-th realistic event as the browser SDK writes it: the same bug, message, frames (oldest
 * first, as Sentry lists them), page, user agent, breadcrumbs, user, release and event id, in
 * Sentry's fields, with the SDK's own (sdk, level, trace context) from test/helpers/browser/sentry.ts.
 */
export function sentryEvent(n: number): Record<string, unknown> {
  const ours = realisticEvent(n) as {
    timestamp: string
    error: { type: string; message: string; stack: string }
    breadcrumbs: Array<{ type: string; category: string; message: string; timestamp: number }>
    context: { url: string; user_agent: string }
    environment: string
    release: string
    event_id: string
    user: { id: string }
  }
  const frames = ours.error.stack
    .split('\n')
    .flatMap((line) => {
      const m = FRAME.exec(line)
      return m ? [{ filename: m[2], function: m[1], in_app: true, lineno: Number(m[3]), colno: Number(m[4]) }] : []
    })
    .reverse()
  return browserEvent({
    exception: { values: [{ type: ours.error.type, value: ours.error.message, stacktrace: { frames }, mechanism: { type: 'auto.browser.global_handlers.onerror', handled: false } }] },
    event_id: ours.event_id.replaceAll('-', ''),
    request: { url: ours.context.url, headers: { 'User-Agent': ours.context.user_agent } },
    timestamp: Date.parse(ours.timestamp) / 1000,
    environment: ours.environment,
    release: ours.release,
    breadcrumbs: ours.breadcrumbs.map((b) => ({ timestamp: b.timestamp / 1000, category: `${b.category}.${b.type}`, message: b.message })),
    user: ours.user,
    // Not in our events: left out, so both routes carry the same information.
    tags: undefined,
    debug_meta: undefined,
  })
}

/** Writes wrk's script for the envelopes of events indices (the events side's), posted with ingestKey to the project's DSN number. */
export async function writeEnvelopeLoad(db: Queryable, baseUrl: string, projectId: string, ingestKey: string, indices: readonly number[]): Promise<EnvelopeLoad> {
  const dsnNumber = await readDsnNumber(db, projectId)
  if (dsnNumber === undefined) throw new Error(`project ${projectId} has no DSN number`)
  const bodies = indices.map((n) => eventEnvelope(sentryEvent(n)))
  const loads = writeLoads(bodies, { 'Content-Type': 'text/plain;charset=UTF-8' })
  return { url: `${baseUrl}${envelopePath(dsnNumber, ingestKey)}`, script: loads.varied, bytes: Buffer.byteLength(bodies[0]!), remove: loads.remove }
}

/** One round of envelopes for seconds, with the events stream's new entries and the ingress process's CPU time. */
export async function runEnvelopeRound(load: EnvelopeLoad, redis: Redis, stream: string, ingressPid: number, seconds: number): Promise<EnvelopeRound> {
  const entries = await redis.xlen(stream)
  const cpu = cpuMicros(ingressPid)
  const wrk = runWrk(load.url, load.script, seconds)
  return { wrk, cpuMicros: cpuMicros(ingressPid) - cpu, entries: (await redis.xlen(stream)) - entries }
}

/**
 * The table rows: envelopes/s accepted (answered 2xx) beside the events route's rate of the same
 * rounds (eventsAccepted, one a round), their ratio, and the ingress's CPU per request of each.
 */
export function envelopeRows(load: EnvelopeLoad, rounds: readonly EnvelopeRound[], eventsAccepted: readonly number[], eventCpuMicros: number): string[] {
  const accepted = rounds.map((r) => acceptedOf(r.wrk))
  const rate = median(accepted)
  const percent = (x: number): string => `${(x * 100).toFixed(1)}%`
  const requests = rounds.reduce((sum, r) => sum + r.wrk.requests, 0)
  const non2xx = rounds.reduce((sum, r) => sum + r.wrk.non2xx, 0)
  const entries = rounds.reduce((sum, r) => sum + r.entries, 0)
  const cpu = rounds.reduce((sum, r) => sum + r.cpuMicros, 0) / Math.max(1, requests)
  return [
    `| accepted by the Sentry envelope route (the same events as @sentry/browser 11 envelopes, about ${load.bytes} bytes) | ${rate.toFixed(0)} envelopes/s (${accepted.map((a) => a.toFixed(0)).join(', ')}) | — |`,
    `| envelopes / events | ${percent(rate / median(eventsAccepted))} (${accepted.map((a, i) => percent(a / eventsAccepted[i]!)).join(', ')}) | — |`,
    `| ingress CPU per request over the rounds | ${cpu.toFixed(1)} µs an envelope, ${eventCpuMicros.toFixed(1)} µs an event | — |`,
    `| envelope checks | ${requests - non2xx} answered 2xx, ${non2xx} not; ${entries} stream entries (${((requests - non2xx) / Math.max(1, entries)).toFixed(1)} events each) | |`,
  ]
}
