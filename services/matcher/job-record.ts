/**
 * One worker's hold on one friction job while it runs (a LeasedRecord over friction_jobs): its
 * claim, its requeue and its one end, completed or failed with the error. Nothing else moves with
 * a friction job's row: the work writes its own tables in its own transactions (a scan, a
 * matching decision), each safe to run again.
 */
import { LeasedJobRecord, leasedClaim } from '../../shared/jobs/index.js'
import { countJobEnd } from './metrics.js'
import { FrictionJob } from './store/entities.js'

/**
 * How a friction job ended: completed (with the jobs it queued, to dispatch, and for a confirm
 * job, when its ticket's checks go on: a job of the same subject can only be queued once this
 * one has ended), or failed with a stable code and a message.
 */
export type FrictionEnd = { state: 'completed'; queued?: readonly string[]; againAt?: Date } | { state: 'failed'; code: string; message: string }

export const FRICTION_FINAL_STATES = ['completed', 'failed'] as const
export const FRICTION_ACTIVE_STATES = ['pending', 'claimed'] as const

export class FrictionJobRecord extends LeasedJobRecord<FrictionJob> {
  /** Jobs the finished work queued, to dispatch once the end committed. */
  queued: readonly string[] = []
  /** A confirm job's next batch of checks, queued once the end committed. */
  againAt: Date | undefined

  get job(): FrictionJob {
    return this.row
  }

  /** A requeued job (for the stream's next delivery, or with a lease of 0 for the sweeper at once) goes back to pending. */
  protected override readonly queuedState = 'pending'

  /** Ends the job once: completed, or failed with `<code>: <message>` in its error. */
  finish(end: FrictionEnd, _durationMs: number): Promise<void> {
    return this.write((_, row) => {
      row.state = end.state
      row.error = end.state === 'failed' ? `${end.code}: ${end.message}`.slice(0, 2000) : null
      row.leaseUntil = null
      row.updatedAt = new Date()
    }).then(() => {
      if (end.state === 'completed') {
        this.queued = end.queued ?? []
        this.againAt = end.againAt
      }
      countJobEnd(this.row.kind, end.state)
    })
  }
}

/** Claims a friction job: claimed, one more attempt (unless only to stop it), the lease starting now. */
export const claimFrictionJob = leasedClaim({
  entity: FrictionJob,
  finalStates: FRICTION_FINAL_STATES,
  runningState: 'claimed',
  record: FrictionJobRecord,
})
