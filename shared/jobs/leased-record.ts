/**
 * One worker's hold on one leased job row while it runs: a row of the actor's own table, reached
 * through MikroORM, with lease_until, attempts and a version column (an investigation, a fix).
 * Every write is an optimistic-lock update of the row this worker read, and they run one at a time
 * (a unit of work is not safe for concurrent flushes); a write that finds the row changed by
 * someone else means the job was taken over, and every later write refuses.
 */
import { OptimisticLockError } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'

/** The job no longer belongs to this worker: its lease lapsed and another took it, or it finished. */
export class RunTakenOver extends Error {
  override name = 'RunTakenOver'
}

export class LeasedRecord<Row extends { leaseUntil: Date | null; attempts: number }> {
  #queue: Promise<unknown> = Promise.resolve()
  #lost = false
  /** A change made by a deferred claim, written with the next write (claim.ts: a stop before any work). */
  #deferred: ((tx: EntityManager, row: Row) => Promise<void> | void) | undefined

  constructor(
    protected readonly em: EntityManager,
    protected readonly row: Row,
    protected readonly leaseMs: number,
  ) {}

  /** The job's attempts counted so far, this run's claim included (every kind of delivery counts). */
  get attempt(): number {
    return this.row.attempts
  }

  /** True once a write found the job taken over. */
  get lost(): boolean {
    return this.#lost
  }

  /** Holds change back to be written in the transaction of the next write (one transaction instead of two). */
  defer(change: (tx: EntityManager, row: Row) => Promise<void> | void): void {
    this.#deferred = change
  }

  /** Runs change on the row inside a transaction, after the writes before it; RunTakenOver when the row moved on. */
  write(change: (tx: EntityManager, row: Row) => Promise<void> | void): Promise<void> {
    const next = this.#queue.then(async () => {
      if (this.#lost) throw new RunTakenOver('the job was taken over by another worker')
      const deferred = this.#deferred
      this.#deferred = undefined
      const before = { ...this.row }
      try {
        await this.em.transactional(async (tx) => {
          const row = tx.merge(this.row as object) as Row
          await deferred?.(tx, row)
          await change(tx, row)
          await tx.flush()
        })
      } catch (error) {
        if (error instanceof OptimisticLockError) {
          this.#lost = true
          throw new RunTakenOver('the job was taken over by another worker')
        }
        // The transaction left nothing in the database, so nothing of it may stay in memory either:
        // the row's fields as they were and no entity waiting in the unit of work. Otherwise the
        // next write (the requeue after a failure) would flush the failed change with its own.
        Object.assign(this.row, before)
        this.em.clear()
        throw error
      }
    })
    this.#queue = next.catch(() => undefined)
    return next
  }

  /** The row as this worker last wrote it. */
  get current(): Row {
    return this.row
  }

  /** Pushes the lease forward: the sweeper leaves a job alone while its lease holds. */
  renew(): Promise<void> {
    return this.write((_, row) => {
      row.leaseUntil = new Date(Date.now() + this.leaseMs)
    })
  }
}

/**
 * Touches the row's updated_at where its table has one (digests, friction_jobs: the tables whose
 * rows are dispatched when due): the kit's dispatch, claim and requeue each count as a change.
 */
export function touch(row: object): void {
  if ('updatedAt' in row) (row as { updatedAt: Date }).updatedAt = new Date()
}

/** A LeasedRecord of a job row with the kit's default requeue: back to the kind's queued state with a fresh lease. */
export class LeasedJobRecord<Row extends { state: string; leaseUntil: Date | null; attempts: number }> extends LeasedRecord<Row> {
  /** The state a requeued job goes back to. */
  protected readonly queuedState: string = 'queued'

  /**
   * Hands the job back as queued: for the stream's next delivery (a failure it may outlast), or,
   * with a lease of 0, for the sweeper to dispatch at once. The attempt stays counted.
   */
  requeue(leaseMs = this.leaseMs): Promise<void> {
    return this.write(async (tx, row) => {
      row.state = this.queuedState
      row.leaseUntil = new Date(Date.now() + leaseMs)
      touch(row)
      await this.requeued(tx, row)
    })
  }

  /** What moves with a requeue, in its transaction (the status, an updated_at); nothing unless the kind says. */
  protected requeued(_tx: EntityManager, _row: Row): Promise<void> | void {}
}
