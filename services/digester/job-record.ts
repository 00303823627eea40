/**
 * One worker's hold on one digest while a step of it runs (a LeasedRecord over digests): its
 * claim, its requeue and its end. A step ends either the digest (delivered, kept, empty,
 * undelivered) or hands it on to its next step, due at a time of the digester's clock and
 * dispatched by the sweep then, with the attempts counted afresh for that step.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import { LeasedJobRecord, leasedClaim } from '../../shared/jobs/index.js'
import { countDigestEnd } from './metrics.js'
import { Digest, DigestItem, type DigestStep } from './store/entities.js'

type Apply = (tx: EntityManager, row: Digest) => Promise<void> | void

/** How a step ended: the next step and when it is due, or the digest's end; apply writes what the step made with it. */
export type DigestEnd =
  | { state: 'queued'; step: DigestStep; notBefore: Date; apply?: Apply }
  | { state: 'delivered' | 'kept' | 'empty'; apply?: Apply }
  | { state: 'undelivered'; code: string; message: string; apply?: Apply }

export const DIGEST_FINAL_STATES = ['delivered', 'kept', 'empty', 'undelivered'] as const
export const DIGEST_ACTIVE_STATES = ['queued', 'running'] as const

export class DigestRecord extends LeasedJobRecord<Digest> {
  get digest(): Digest {
    return this.row
  }

  /** The digest's frozen items, in order. */
  items(): Promise<DigestItem[]> {
    return this.em.find(DigestItem, { digestId: this.row.id }, { orderBy: { position: 'asc' } })
  }

  /** Ends the step once, with what it made. */
  finish(end: DigestEnd, _durationMs: number): Promise<void> {
    return this.write(async (tx, row) => {
      await end.apply?.(tx, row)
      row.state = end.state
      row.updatedAt = new Date()
      if (end.state === 'queued') {
        row.step = end.step
        row.notBefore = end.notBefore
        row.attempts = 0
        // Not dispatched: the sweep dispatches it once notBefore has passed on the digester's clock.
        row.leaseUntil = null
        return
      }
      row.leaseUntil = null
      if (end.state === 'undelivered') {
        row.errorCode = end.code
        row.error = end.message.slice(0, 2000)
      }
    }).then(() => {
      if (end.state !== 'queued') countDigestEnd(end.state)
    })
  }
}

/** Claims a digest: running, one more attempt (unless only to stop it), the lease starting now. */
export const claimDigest = leasedClaim({
  entity: Digest,
  finalStates: DIGEST_FINAL_STATES,
  runningState: 'running',
  record: DigestRecord,
})
