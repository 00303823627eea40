/**
 * The recorder's metrics (docs/metrics.md), declared beside its loop: what its batches did with
 * chunks, what its sweeps closed and deleted, which objects it deleted and why, and the open
 * recordings across the fleet (read from PostgreSQL when scraped, while a recorder runs here).
 */
import { Counter, Gauge, readWithin } from '../../shared/metrics.js'
import { SECOND } from '../../shared/time.js'

export const chunksStored = new Counter({ name: 'svc_recorder_chunks_stored_total', help: 'Recording chunks the recorder stored, each once.' })
export const chunksDuplicate = new Counter({ name: 'svc_recorder_chunks_duplicate_total', help: 'Recording chunks found stored already (a redelivered entry, or the SDK sending a chunk again).' })
export const chunksSkipped = new Counter({
  name: 'svc_recorder_chunks_skipped_total',
  help: 'Recording chunk entries skipped, by reason (malformed: fields not as the contract says; project_gone: the project was deleted).',
  labelNames: ['reason'],
})
export const objectsDeleted = new Counter({
  name: 'svc_recorder_objects_deleted_total',
  help: "Chunk objects the recorder deleted, by reason (resent: a resend's second copy; project_gone; retention; orphan: a ledger key no chunk row named after a day).",
  labelNames: ['reason'],
})
export const recordingsClosed = new Counter({ name: 'svc_recordings_closed_total', help: "Recordings this process's sweeps closed (no chunk for SVC_RECORDING_IDLE_MINUTES)." })
export const recordingsDeleted = new Counter({ name: 'svc_recordings_deleted_total', help: "Recordings this process's sweeps deleted, objects and rows, past SVC_RECORDING_RETENTION_DAYS." })

for (const reason of ['malformed', 'project_gone']) chunksSkipped.inc({ reason }, 0)
for (const reason of ['resent', 'project_gone', 'retention', 'orphan']) objectsDeleted.inc({ reason }, 0)

/** Where a scrape reads the open recordings: a running recorder's count. */
const openSources = new Set<() => Promise<number>>()
const OPEN_READ_MS = 2 * SECOND
new Gauge({
  name: 'svc_recordings_open',
  help: 'Recordings not closed yet across every project, read from PostgreSQL when scraped (only where a recorder runs).',
  async collect() {
    this.reset()
    const [source] = openSources
    const open = source && (await readWithin(source, OPEN_READ_MS))
    if (open !== undefined) this.set(open)
  },
})

/** Lets scrapes read the open recordings through count while the recorder runs; answers how to stop. */
export function watchOpen(count: () => Promise<number>): () => void {
  openSources.add(count)
  return () => openSources.delete(count)
}
