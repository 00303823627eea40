/**
 * Nothing stays queued or running: jobs whose lease lapsed (no worker renewed it: the dispatch was
 * lost, or the worker died mid-run) go back to queued with a fresh lease and are dispatched again,
 * and those that used their attempts stop with lease_lost. Any worker may run it: the optimistic
 * lock makes two sweepers' changes to one row exclusive.
 */
import { OptimisticLockError } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Orm } from '../db/orm.js'
import type { JobKind, JobRecord, JobRow } from './job-kind.js'
import { RunTakenOver } from './leased-record.js'

export interface LapsedOptions {
  orm: Orm
  leaseMs: number
  maxAttempts: number
}

/** Rows looked at per pass; the next pass takes the rest. */
const PER_PASS = 100

/** One pass over kind's lapsed rows; answers how many it dispatched again and how many it stopped. */
export async function sweepLapsed<Row extends JobRow, Rec extends JobRecord<End>, Subject, End>(kind: JobKind<Row, Rec, Subject, End>, options: LapsedOptions, now = Date.now()): Promise<{ redispatched: number; stopped: number }> {
  const em = options.orm.em.fork() as EntityManager
  const lapsed = (await em.find(kind.entity, { ...kind.rows, state: { $in: [...kind.activeStates] }, leaseUntil: { $lt: new Date(now) } } as never, { limit: PER_PASS })) as Row[]
  let redispatched = 0
  let stopped = 0
  for (const row of lapsed) {
    if (row.attempts >= options.maxAttempts) {
      if (await stopSpent(kind, options, row)) stopped++
      continue
    }
    try {
      // Back to queued: the next claim starts it over (a worker that merely stalled finds it taken).
      await em.transactional(async (tx) => {
        const held = tx.merge(row as object) as Row
        held.state = kind.queuedState ?? 'queued'
        held.leaseUntil = new Date(now + options.leaseMs)
        await tx.flush()
        await kind.requeued(tx, held)
      })
    } catch (error) {
      if (error instanceof OptimisticLockError) continue
      throw error
    }
    await kind.dispatch(row.id)
    redispatched++
  }
  return { redispatched, stopped }
}

async function stopSpent<Row extends JobRow, Rec extends JobRecord<End>, Subject, End>(kind: JobKind<Row, Rec, Subject, End>, options: LapsedOptions, row: Row): Promise<boolean> {
  try {
    const claim = await kind.claim(options.orm, row.id, options.leaseMs, { countAttempt: false })
    if (claim.status !== 'claimed') return false
    await claim.record.finish(kind.stopped('lease_lost', `No worker finished the ${kind.what} in ${row.attempts} attempts; the last one stopped renewing its lease.`), 0)
    return true
  } catch (error) {
    if (error instanceof RunTakenOver) return false
    throw error
  }
}
