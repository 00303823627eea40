/**
 * What a job run does with an error its work threw, the same for every kind: taken over, it lets go;
 * stopping, it hands the job back with the lease lapsed, so the sweeper dispatches it to a live
 * worker at once; a failure before the last attempt goes back to queued and is rethrown for the
 * stream's retry (which claims it at once); on the last attempt it stops with the failure's own
 * cause. The last attempt is the job's, not the delivery's: the stream's retries and the sweeper's
 * dispatches both claim it, so a stream entry on its first delivery may carry the job's last
 * attempt, and a stop left to the sweeper would blame a lost worker for an outage.
 */
import type { Logger } from '../log.js'
import { RunTakenOver } from './leased-record.js'

export interface FailedJob {
  signal: AbortSignal
  stopping: AbortSignal
  /** The stream delivery's attempt. */
  attempt: number
  maxAttempts: number
  /** The job's record once claimed. */
  record: { readonly lost: boolean; readonly attempt: number; requeue(leaseMs?: number): Promise<void> } | undefined
  /** The stop's code for an error on the last attempt: an outage's own, else the kind's internal failure. */
  codeOf(error: unknown): string
  /** Ends the job with the stop (through its record, or claimed at once). */
  stopWith(code: string, message: string): Promise<void>
  log: Logger
  what: string
  id: string
}

/** Settles the error; rethrows it when the stream should deliver the job again. */
export async function settleJobError(error: unknown, job: FailedJob): Promise<void> {
  if (error instanceof RunTakenOver) return
  const held = job.record && !job.record.lost ? job.record : undefined
  if (job.signal.aborted) {
    if (job.stopping.aborted && held) await held.requeue(0).catch(() => undefined)
    return
  }
  if (Math.max(job.attempt, held?.attempt ?? 0) < job.maxAttempts) {
    if (held) await held.requeue().catch(() => undefined)
    throw error
  }
  job.log.error(`${job.what} failed on its last attempt`, { [job.what]: job.id, error })
  await job.stopWith(job.codeOf(error), (error as Error).message).catch(() => undefined)
}
