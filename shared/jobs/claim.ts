/**
 * A claim of a leased job row, the same for every kind: gone, ended, running under another
 * worker's live lease, or out of attempts, it is not claimed; otherwise one optimistic-lock write
 * moves it to the running state with one more attempt (unless it is claimed only to be stopped) and
 * a fresh lease, together with what the kind moves beside it (the status).
 */
import type { EntityName } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Orm } from '../db/orm.js'
import type { ClaimOptions, JobClaim, JobRow } from './job-kind.js'
import { touch, type LeasedRecord } from './leased-record.js'

export interface ClaimSpec<Row extends JobRow, Rec> {
  finalStates: readonly string[]
  runningState: string
  leaseMs: number
  record(em: EntityManager, row: Row): Rec
  /** What moves with the claim in its transaction (the status). */
  claimed(tx: EntityManager, row: Row): Promise<void>
}

/** Claims row (null: gone) through spec. */
export async function claimRow<Row extends JobRow, Rec extends LeasedRecord<Row>>(em: EntityManager, row: Row | null, spec: ClaimSpec<Row, Rec>, options: ClaimOptions<Row> = {}): Promise<JobClaim<Rec>> {
  if (!row) return { status: 'missing' }
  if (spec.finalStates.includes(row.state)) return { status: 'finished' }
  // Another worker runs it and renews its lease: a delivery that overlapped its claim leaves it alone.
  if (row.state === spec.runningState && row.leaseUntil !== null && row.leaseUntil.getTime() > Date.now()) return { status: 'held' }
  // A job that used its attempts is not started again, whichever delivery brought it: the sweeper stops it (lease_lost).
  if (options.countAttempt !== false && options.maxAttempts !== undefined && row.attempts >= options.maxAttempts) return { status: 'spent' }
  const record = spec.record(em, row)
  const claim = async (tx: EntityManager, held: Row): Promise<void> => {
    held.state = spec.runningState
    if (options.countAttempt !== false) held.attempts += 1
    held.startedAt = new Date()
    held.leaseUntil = new Date(Date.now() + spec.leaseMs)
    // A deferred claim rides with the write that ends the job, which moves what follows the row itself.
    if (!options.deferred) await spec.claimed(tx, held)
  }
  if (options.deferred) record.defer(claim)
  else await record.write(claim)
  return { status: 'claimed', record }
}

/** What a kind's default claim needs: its rows, its states, its record class, and what moves with a claim. */
export interface LeasedClaim<Row extends JobRow, Rec> {
  entity: EntityName<Row>
  finalStates: readonly string[]
  runningState: string
  /** The kind's LeasedRecord, made for each claim. */
  record: new (em: EntityManager, row: Row, leaseMs: number) => Rec
  /** What moves with the claim in its transaction (the status); an updated_at is touched (touch) without saying. */
  claimed?(tx: EntityManager, row: Row): Promise<void> | void
}

/** The default claim of a kind (its JobKind's claim): the row the runner read, or read now, claimed with claimRow. */
export function leasedClaim<Row extends JobRow, Rec extends LeasedRecord<Row>>(spec: LeasedClaim<Row, Rec>): (orm: Orm, id: string, leaseMs: number, options?: ClaimOptions<Row>) => Promise<JobClaim<Rec>> {
  return async (orm, id, leaseMs, options = {}) => {
    const em = options.loaded?.em ?? (orm.em.fork() as EntityManager)
    const row = options.loaded?.row ?? ((await em.findOne(spec.entity, id as never)) as Row | null)
    const claim: ClaimSpec<Row, Rec> = {
      finalStates: spec.finalStates,
      runningState: spec.runningState,
      leaseMs,
      record: (held, claimed) => new spec.record(held, claimed, leaseMs),
      claimed: async (tx, claimed) => {
        touch(claimed)
        await spec.claimed?.(tx, claimed)
      },
    }
    return claimRow(em, row, claim, options)
  }
}
