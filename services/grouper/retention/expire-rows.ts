/**
 * Row-by-row expiry where a whole week cannot go yet: a project kept shorter than the longest
 * retention loses its expired rows from the weeks still kept, and every project its rows past
 * retention in events_legacy, the pre-partitioning table that spans all time until its cutover.
 * Bounded batches, each one statement (its own short transaction) through the (project_id,
 * received_at) index, so ingestion never waits on a long delete and a killed pass leaves each
 * batch either done or not.
 */
import type { Queryable } from '../../../shared/db/index.js'

/** Rows per DELETE: a few milliseconds of locks and WAL, then the grouper's turn. */
export const DELETE_BATCH = 5000

export interface ProjectCutoff {
  projectId: string
  /** Rows received before this are deleted. */
  before: Date
}

/** Deletes the expired rows of each project in batches; onBatch hears each batch's count; answers the total. */
export async function deleteExpiredRows(db: Queryable, cutoffs: readonly ProjectCutoff[], onBatch: (rows: number) => void = () => {}, batch = DELETE_BATCH): Promise<number> {
  let total = 0
  for (const { projectId, before } of cutoffs) {
    for (;;) {
      const { rowCount } = await db.query(
        `DELETE FROM events e
         WHERE (e.id, e.received_at) IN (
           SELECT id, received_at FROM events WHERE project_id = $1 AND received_at < $2 LIMIT ${batch})`,
        [projectId, before],
      )
      const deleted = rowCount ?? 0
      total += deleted
      onBatch(deleted)
      if (deleted < batch) break
    }
  }
  return total
}

/** Deletes the event receipts received before `before` (past the resend window), in batches; answers how many. */
export async function pruneReceipts(db: Queryable, before: Date, batch = DELETE_BATCH): Promise<number> {
  let total = 0
  for (;;) {
    const { rowCount } = await db.query(
      `DELETE FROM event_receipts WHERE id IN (SELECT id FROM event_receipts WHERE received_at < $1 LIMIT ${batch})`,
      [before],
    )
    total += rowCount ?? 0
    if ((rowCount ?? 0) < batch) return total
  }
}
