/**
 * What an actor says about one kind of leased job, and nothing else: where its rows are, how a
 * claim and a stop look, what the job needs before it starts, and its work. Everything around the
 * work (the duplicate check, the fleet slot, the claim, the daily budget, the keepers, settlement,
 * the lapsed-lease sweep) is the kit's (runner.ts, lapsed.ts).
 */
import type { EntityName } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Orm } from '../db/orm.js'

/** The columns every leased job row has. */
export interface JobRow {
  id: string
  state: string
  attempts: number
  /** Null on a row never dispatched yet (a matcher's job waiting for its not_before). */
  leaseUntil: Date | null
  /** When its latest claim started it. */
  startedAt: Date | null
}

/** One worker's hold on a claimed job (a LeasedRecord with a finish of the kind's own). */
export interface JobRecord<End> {
  readonly lost: boolean
  readonly attempt: number
  renew(): Promise<void>
  requeue(leaseMs?: number): Promise<void>
  finish(end: End, durationMs: number): Promise<void>
}

/** How a claim is made (claim.ts). */
export interface ClaimOptions<Row> {
  /** false: claimed only to stop it (the sweeper's lease_lost, a stop before any work). */
  countAttempt?: boolean
  maxAttempts?: number
  /** The row as the caller read it in em: claimed without reading it again. */
  loaded?: { em: EntityManager; row: Row }
  /**
   * The claim is written with the record's next write, in its transaction (a stop before any work:
   * claim and end in one transaction); a claim that lost its race fails that write (RunTakenOver).
   */
  deferred?: boolean
}

export type JobClaim<Rec> = { status: 'claimed'; record: Rec } | { status: 'finished' | 'missing' | 'spent' | 'held' }

/** What the work may spend of the project's day, and when the run started. */
export interface JobGrant {
  remainingTokens: number
  startedAt: number
}

export interface JobKind<Row extends JobRow, Rec extends JobRecord<End>, Subject, End> {
  /** How logs and slot holders name the kind ('investigation', 'fix'). */
  readonly what: string
  readonly entity: EntityName<Row>
  /** Queued and running: the states a lease applies to. */
  readonly activeStates: readonly string[]
  /** The state of a claimed job, whose live lease means another worker runs it. */
  readonly runningState: string
  /** The state a lapsed job goes back to ('queued' unless said). */
  readonly queuedState?: string
  /** The kind's rows among the entity's, when one table holds several kinds (the matcher's friction_jobs). */
  readonly rows?: Record<string, unknown>
  /** Claims the job (claim.ts): the running state, one more attempt unless countAttempt is false, a fresh lease. */
  claim(orm: Orm, id: string, leaseMs: number, options?: ClaimOptions<Row>): Promise<JobClaim<Rec>>
  /** The end of a job that stops with code (a reason code of the actor's catalogue). */
  stopped(code: string, message: string): End
  /** What the job needs, or the stop that ends it before any work; undefined when there is nothing to do (its subject is gone). */
  prepare(row: Row): Promise<{ subject: Subject } | { end: End } | undefined>
  /** The work, after the claim; throws JobStop for a reasoned stop, anything else for settlement. */
  work(record: Rec, subject: Subject, grant: JobGrant, signal: AbortSignal): Promise<End>
  /** Runs after a finish committed (dispatching what the finish queued). */
  afterFinish?(record: Rec): Promise<void>
  /** Moves what follows the row (the status) when the sweeper puts the row back to queued in tx. */
  requeued(tx: EntityManager, row: Row): Promise<void>
  /** Dispatches the job again (its stream's entry). */
  dispatch(id: string): Promise<void>
  /** The stop code for an error on the last attempt: an outage's own, else the kind's internal failure. */
  failureCode(error: unknown): string
  /** The project's daily model-token budget, when the kind spends one. */
  readonly budget?: { daily: number; usedToday(row: Row): Promise<number>; exhausted(used: number): End }
}
