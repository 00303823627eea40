/**
 * The retention pass (docs/retention.md): weeks made ahead, whole weeks dropped once every
 * project's retention has passed their upper bound (the longest retention decides), the expired
 * rows of shorter-kept projects deleted in batches from the weeks still kept, and event receipts
 * pruned past the resend window. One pass at a time across the fleet: a session advisory lock,
 * which a killed pass's connection gives back as it closes.
 */
import type pg from 'pg'
import type { Db, Queryable } from '../../../shared/db/index.js'
import { DAY } from '../../../shared/time.js'
import { getProjectRetentions } from '../../web/read/project-retention.js'
import { RESEND_WINDOW_DAYS } from '../store-events.js'
import { deleteExpiredRows, pruneReceipts, type ProjectCutoff } from './expire-rows.js'
import { partitionsCreated, partitionsDropped, passSeconds, rowsDeleted } from './metrics.js'
import { createAhead, dropExpired, getPartitions, type Partition } from './partitions.js'

/** Arbitrary constant: the pass's advisory-lock key. */
const LOCK_KEY = 7_082_032
/** Weeks made ahead of the current one: a month of ingestion if passes stop. */
export const WEEKS_AHEAD = 4

export interface RetentionSettings {
  /** Days a project's events are kept when its settings name none. */
  readonly retentionDays: number
}

export interface PassOutcome {
  /** False when another pass held the lock: this one did nothing. */
  ran: boolean
  created: string[]
  dropped: string[]
  rowsDeleted: number
  receiptsPruned: number
}

/** Runs one retention pass at now; answers what it did. */
export async function runRetentionPass(db: Db, settings: RetentionSettings, now = Date.now()): Promise<PassOutcome> {
  const outcome: PassOutcome = { ran: false, created: [], dropped: [], rowsDeleted: 0, receiptsPruned: 0 }
  const stopTimer = passSeconds.startTimer()
  await withPassLock(db, async (q) => {
    outcome.ran = true
    const retentions = await getProjectRetentions(q)
    const daysOf = retentions.map((p) => ({ projectId: p.projectId, days: p.retentionDays ?? settings.retentionDays }))
    const longest = Math.max(settings.retentionDays, ...daysOf.map((p) => p.days))
    let partitions = await getPartitions(q)
    outcome.created = await createAhead(q, partitions, WEEKS_AHEAD, now)
    partitionsCreated.inc(outcome.created.length)
    outcome.dropped = await dropExpired(q, partitions, new Date(now - longest * DAY))
    partitionsDropped.inc(outcome.dropped.length)
    partitions = await getPartitions(q)
    outcome.rowsDeleted = await deleteExpiredRows(q, cutoffsOf(daysOf, longest, partitions, now), (rows) => rowsDeleted.inc(rows))
    outcome.receiptsPruned = await pruneReceipts(q, new Date(now - RESEND_WINDOW_DAYS * DAY))
  })
  if (outcome.ran) stopTimer()
  return outcome
}

/**
 * Each project's cutoff. A project kept as long as the longest retention loses whole weeks only,
 * by drop, so its rows are deleted one by one only below the first weekly partition (in
 * events_legacy, which spans all time before its cutover).
 */
export function cutoffsOf(daysOf: ReadonlyArray<{ projectId: string; days: number }>, longest: number, partitions: readonly Partition[], now: number): ProjectCutoff[] {
  const firstWeek = partitions.filter((p) => !p.isDefault && p.from !== undefined).map((p) => p.from!.getTime())
  const weeklyFrom = firstWeek.length > 0 ? Math.min(...firstWeek) : Infinity
  const legacy = partitions.some((p) => !p.isDefault && p.from === undefined)
  const cutoffs: ProjectCutoff[] = []
  for (const { projectId, days } of daysOf) {
    const expired = now - days * DAY
    if (days < longest) cutoffs.push({ projectId, before: new Date(expired) })
    else if (legacy) cutoffs.push({ projectId, before: new Date(Math.min(expired, weeklyFrom)) })
  }
  return cutoffs
}

/**
 * Runs fn holding the fleet's pass lock on one session, or not at all when another pass holds it.
 * The embedded database takes one connection at a time and serves one process: its pool is used
 * as it is, without a session to hold.
 */
async function withPassLock(db: Db, fn: (q: Queryable) => Promise<void>): Promise<void> {
  if (db.singleConnection) return fn(db)
  const client: pg.PoolClient = await db.pool.connect()
  let broken = false
  try {
    const { rows } = await client.query<{ mine: boolean }>('SELECT pg_try_advisory_lock($1) AS mine', [LOCK_KEY])
    if (!rows[0]!.mine) return
    try {
      await fn(client)
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => (broken = true))
    }
  } catch (error) {
    broken = true
    throw error
  } finally {
    client.release(broken)
  }
}
