/**
 * What a run (an investigation's or a fix's) does with an error its work threw, the same for both:
 * taken over, it lets go; stopping, it hands the job back with the lease lapsed, so the sweeper
 * dispatches it to a live worker at once; an outage before the last attempt goes back to queued and
 * is rethrown for the stream's retry (which claims it at once); on the last attempt it stops with
 * the failure's own cause. The last attempt is the job's, not the delivery's: the stream's retries
 * and the sweeper's dispatches both claim it, so a stream entry on its first delivery may carry the
 * job's last attempt, and a stop left to the sweeper would blame a lost worker for an outage.
 */
import type { Logger } from '../../shared/log.js'
import { CodehostUnreachable } from '../../shared/plugins/types.js'
import type { StopCode } from './stops.js'
import { RunTakenOver } from './store/leased-record.js'

export interface FailedRun {
  signal: AbortSignal
  stopping: AbortSignal
  attempt: number
  maxAttempts: number
  /** The job's record once claimed. */
  record: { readonly lost: boolean; readonly attempt: number; requeue(leaseMs?: number): Promise<void> } | undefined
  /** The stop for an internal error on the last attempt (investigation_failed, fix_failed). */
  failedCode: StopCode
  /** Ends the job with the stop (through its record, or claimed at once). */
  stopWith(code: StopCode, message: string): Promise<void>
  log: Logger
  what: string
  id: string
}

/** Settles the error; rethrows it when the stream should deliver the job again. */
export async function settleRunError(error: unknown, run: FailedRun): Promise<void> {
  if (error instanceof RunTakenOver) return
  const held = run.record && !run.record.lost ? run.record : undefined
  if (run.signal.aborted) {
    if (run.stopping.aborted && held) await held.requeue(0).catch(() => undefined)
    return
  }
  if (Math.max(run.attempt, held?.attempt ?? 0) < run.maxAttempts) {
    if (held) await held.requeue().catch(() => undefined)
    throw error
  }
  const code: StopCode = error instanceof CodehostUnreachable ? 'codehost_unavailable' : run.failedCode
  run.log.error(`${run.what} failed on its last attempt`, { [run.what]: run.id, error })
  await run.stopWith(code, (error as Error).message).catch(() => undefined)
}
