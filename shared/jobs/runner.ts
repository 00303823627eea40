/**
 * The runner of one dispatched leased job, the same for every kind. Order: the row (gone or ended:
 * nothing to do; running under a live lease: a duplicate delivery); what it needs (a stop at once
 * when something is missing, no slot needed); a fleet slot (waiting while the fleet is full or
 * paused, the queued row's lease kept alive); the claim; the project's daily budget; the work under
 * a lease keeper. A worker that dies leaves the lease to lapse: the sweeper dispatches the job
 * again, and the next claim starts it over. Whatever happens, the job ends once (settle.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Logger } from '../log.js'
import type { Orm } from '../db/orm.js'
import type { JobKind, JobRecord, JobRow } from './job-kind.js'
import { keepRenewing, waitForSlot } from './keepers.js'
import { RunTakenOver } from './leased-record.js'
import { settleJobError } from './settle.js'
import type { FleetSlots } from './slots.js'
import { JobStop } from './stop.js'

export interface RunnerDeps {
  orm: Orm
  slots: FleetSlots
  leaseMs: number
  log: Logger
  /** Names this process's slot holds. */
  holder: string
  /** Aborted when this process stops: the job is handed back rather than holding shutdown. */
  stopping: AbortSignal
}

/** The delivery being run: the job's id, the stream's attempt, and the handler's signal. */
export interface Delivery {
  id: string
  attempt: number
  maxAttempts: number
  signal: AbortSignal
}

/** Takes one job to its end, or leaves it to another worker; throws only for the stream to retry. */
export async function runJob<Row extends JobRow, Rec extends JobRecord<End>, Subject, End>(kind: JobKind<Row, Rec, Subject, End>, deps: RunnerDeps, delivery: Delivery): Promise<void> {
  const { id, signal } = delivery
  const em = deps.orm.em.fork() as EntityManager
  const row = (await em.findOne(kind.entity, id as never)) as Row | null
  if (!row || !kind.activeStates.includes(row.state)) return
  // Another worker holds it and renews its lease: this delivery is a duplicate.
  if (row.state === kind.runningState && row.leaseUntil !== null && row.leaseUntil.getTime() > Date.now()) return
  const prepared = await kind.prepare(row)
  if (!prepared) return
  if ('end' in prepared) return finishAtOnce(kind, deps, id, prepared.end, { em, row })

  const holder = `${deps.holder}:${kind.what}:${id}`
  if (!(await waitForSlot(deps.slots, deps.leaseMs, em, row, holder, signal))) return
  const stopSlotKeeper = keepRenewing(() => deps.slots.renew(holder), deps.leaseMs)
  let record: Rec | undefined
  const startedAt = Date.now()
  try {
    const claim = await kind.claim(deps.orm, id, deps.leaseMs, { maxAttempts: delivery.maxAttempts, loaded: { em, row } })
    if (claim.status !== 'claimed') return
    record = claim.record
    let remainingTokens = Infinity
    if (kind.budget) {
      const used = await kind.budget.usedToday(row)
      if (used >= kind.budget.daily) return await record.finish(kind.budget.exhausted(used), 0)
      remainingTokens = kind.budget.daily - used
    }
    const held = record
    const stopLeaseKeeper = keepRenewing(() => held.renew(), deps.leaseMs)
    try {
      await held.finish(await kind.work(held, prepared.subject, { remainingTokens, startedAt }, signal), Date.now() - startedAt)
      await kind.afterFinish?.(held)
    } catch (error) {
      if (error instanceof JobStop) return await held.finish(kind.stopped(error.code, error.message), Date.now() - startedAt)
      throw error
    } finally {
      stopLeaseKeeper()
    }
  } catch (error) {
    const stopWith = (code: string, message: string): Promise<void> => (record ? record.finish(kind.stopped(code, message), Date.now() - startedAt) : finishAtOnce(kind, deps, id, kind.stopped(code, message)))
    await settleJobError(error, { signal, stopping: deps.stopping, attempt: delivery.attempt, maxAttempts: delivery.maxAttempts, record, codeOf: (e) => kind.failureCode(e), stopWith, log: deps.log, what: kind.what, id })
  } finally {
    stopSlotKeeper()
    await deps.slots.release(holder).catch(() => undefined)
  }
}

/** Claims and finishes at once: a stop decided before any work (loaded: the row as the runner read it). */
async function finishAtOnce<Row extends JobRow, Rec extends JobRecord<End>, Subject, End>(kind: JobKind<Row, Rec, Subject, End>, deps: RunnerDeps, id: string, end: End, loaded?: { em: EntityManager; row: Row }): Promise<void> {
  try {
    // Claimed and ended in one transaction.
    const claim = await kind.claim(deps.orm, id, deps.leaseMs, { deferred: true, ...(loaded ? { loaded } : {}) })
    if (claim.status === 'claimed') await claim.record.finish(end, 0)
  } catch (error) {
    if (!(error instanceof RunTakenOver)) throw error
  }
}
