/**
 * The consumers of a job stream, the same for every actor: each entry names one job of one kind by
 * its field (job-stream.ts); each consumer loop reads one entry at a time and runs it as one
 * delivery, tracked by the host (a long job counts as progress, a stopping process aborts it), and
 * every run is an attempt: a failed one waits for the stream's retry instead of running again at
 * once. An entry that names no kind, or a kind paused on this worker, is let go: its row stays
 * queued, and a sweep dispatches it again once a worker runs that kind.
 */
import type { Orm } from '../db/orm.js'
import type { Logger } from '../log.js'
import type { StreamEntry } from '../streams/index.js'
import type { HostedConsumer, JobHost } from './hosted.js'
import type { JobKind, JobRecord, JobRow } from './job-kind.js'
import type { JobStream } from './job-stream.js'
import { runJob, type Delivery } from './runner.js'
import type { FleetSlots } from './slots.js'

/** The loop a delivery runs in: its name (what slot holders are named after) and the host's stop. */
export interface ConsumerLoop {
  holder: string
  stopping: AbortSignal
}

/** One kind of entry a stream carries: its field, and what runs the job an entry names. */
export interface StreamedKind {
  readonly entry: JobStream
  /** Not run on this worker (its fleet cap is 0): its entries are let go. */
  readonly paused?: boolean
  run(delivery: Delivery, loop: ConsumerLoop): Promise<void>
}

export interface ConsumeOptions {
  stream: string
  group: string
  /** The kinds its entries name (an entry is the first kind whose field it carries). */
  kinds: readonly StreamedKind[]
  /** Consumer loops this process runs: SVC_STREAM_CONSUMERS unless said, at least one. */
  loops?: number
  /** A single loop named `<process>-<label>` (`-fixer`) instead of loops numbered from 0. */
  label?: string
}

/** The consumers of a job stream, for the host's service. */
export function consumeJobs(host: JobHost, options: ConsumeOptions): HostedConsumer[] {
  const { timing } = host.deps
  const names = options.label !== undefined ? [options.label] : Array.from({ length: Math.max(1, options.loops ?? timing.consumersPerProcess) }, (_, i) => String(i))
  return names.map((name) => {
    const holder = `${host.name}-${name}`
    return host.consumer({
      stream: options.stream,
      group: options.group,
      consumer: holder,
      batchSize: 1,
      rerunLoneEntry: false,
      handler: ([entry], { signal }) => {
        const named = jobOf(options.kinds, entry!)
        if (!named || named.kind.paused) return Promise.resolve()
        const delivery = { id: named.id, attempt: entry!.attempt, maxAttempts: timing.maxAttempts, signal: AbortSignal.any([signal, host.stopping]) }
        return host.track(() => named.kind.run(delivery, { holder, stopping: host.stopping }))
      },
    })
  })
}

/** What a leased kind's runs need besides the loop: the runner's deps (runner.ts). */
export interface LeasedRuns {
  orm: Orm
  slots: FleetSlots
  /** The job's lease (renewed every third of it while it runs). */
  leaseMs: number
  log: Logger
  paused?: boolean
}

/** A leased job kind as its stream carries it: each delivery taken to its end by runJob. */
export function leasedKind<Row extends JobRow, Rec extends JobRecord<End>, Subject, End>(kind: JobKind<Row, Rec, Subject, End>, entry: JobStream, runs: LeasedRuns): StreamedKind {
  const { paused, ...deps } = runs
  return { entry, ...(paused ? { paused } : {}), run: (delivery, loop) => runJob(kind, { ...deps, ...loop }, delivery) }
}

function jobOf(kinds: readonly StreamedKind[], entry: StreamEntry): { kind: StreamedKind; id: string } | undefined {
  for (const kind of kinds) {
    const id = kind.entry.idOf(entry)
    if (id !== '') return { kind, id }
  }
  return undefined
}
