/**
 * Ingestion's metrics (docs/metrics.md): events accepted, refused by catalogue code, and how long
 * each events request took; recording chunks accepted (with their bytes) and refused by code.
 * This is the hot path (tens of thousands of events a second), so a request only adds to plain
 * numbers and a preallocated histogram; the registry reads the numbers when scraped. Each ingress
 * thread counts what it served; the main thread sums them.
 */
import { Counter, TallyHistogram } from '../../shared/metrics.js'
import { SECOND } from '../../shared/time.js'
import { INGEST_ERRORS, type IngestErrorCode } from './errors.js'

const byCode = (): Record<IngestErrorCode, number> => Object.fromEntries(Object.keys(INGEST_ERRORS).map((code) => [code, 0])) as Record<IngestErrorCode, number>

let accepted = 0
const refused = byCode()
const chunks = { accepted: 0, refused: byCode(), storedBytes: 0, rawBytes: 0 }

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

new Counter({
  name: 'svc_ingress_recording_chunks_accepted_total',
  help: 'Recording chunks answered 202: stored in the object store and queued on the recordings stream.',
  collect() {
    this.reset()
    this.inc(chunks.accepted)
  },
})

new Counter({
  name: 'svc_ingress_recording_chunks_refused_total',
  help: 'Recording chunks answered with an error, by its catalogue code (docs/errors.md).',
  labelNames: ['code'],
  collect() {
    this.reset()
    for (const code of Object.keys(chunks.refused) as IngestErrorCode[]) this.inc({ code }, chunks.refused[code])
  },
})

new Counter({
  name: 'svc_ingress_recording_bytes_accepted_total',
  help: 'Bytes of the recording chunks answered 202, as stored (gzipped) and as sent before compression (raw).',
  labelNames: ['form'],
  collect() {
    this.reset()
    this.inc({ form: 'stored' }, chunks.storedBytes)
    this.inc({ form: 'raw' }, chunks.rawBytes)
  },
})

/** Counts a recording chunk stored and answered 202, with its stored (gzipped) and decompressed sizes. */
export function countChunkAccepted(storedBytes: number, rawBytes: number): void {
  chunks.accepted++
  chunks.storedBytes += storedBytes
  chunks.rawBytes += rawBytes
}

/** Counts a recording chunk refused with code. */
export function countChunkRefused(code: IngestErrorCode): void {
  chunks.refused[code]++
}

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
