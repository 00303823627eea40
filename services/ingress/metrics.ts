/**
 * Ingestion's metrics (docs/metrics.md): events accepted, refused by catalogue code, and how long
 * each events request took. This is the hot path (tens of thousands of events a second), so an
 * event only adds to plain numbers and a preallocated histogram; the registry reads the numbers
 * when scraped. Each ingress thread counts what it served; the main thread sums them.
 */
import { Counter, TallyHistogram } from '../../shared/metrics.js'
import { SECOND } from '../../shared/time.js'
import { INGEST_ERRORS, type IngestErrorCode } from './errors.js'

let accepted = 0
const refused = Object.fromEntries(Object.keys(INGEST_ERRORS).map((code) => [code, 0])) as Record<IngestErrorCode, number>

const durations = new TallyHistogram(
  'svc_ingress_request_duration_seconds',
  'Time from an events request arriving to its answer, by result (accepted: queued on the events stream; refused: any error answer).',
  'result',
  ['accepted', 'refused'],
  [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
)

new Counter({
  name: 'svc_ingress_events_accepted_total',
  help: 'Events answered 202: queued on the events stream.',
  collect() {
    this.reset()
    this.inc(accepted)
  },
})

new Counter({
  name: 'svc_ingress_events_refused_total',
  help: 'Events answered with an error, by its catalogue code (docs/errors.md).',
  labelNames: ['code'],
  collect() {
    this.reset()
    for (const code of Object.keys(refused) as IngestErrorCode[]) this.inc({ code }, refused[code])
  },
})

/** Counts an event queued and answered 202; started is performance.now() when its request arrived. */
export function countAccepted(started: number): void {
  accepted++
  durations.observe(0, (performance.now() - started) / SECOND)
}

/** Counts an event refused with code; started is performance.now() when its request arrived. */
export function countRefused(code: IngestErrorCode, started: number): void {
  refused[code]++
  durations.observe(1, (performance.now() - started) / SECOND)
}
