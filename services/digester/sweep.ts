/**
 * The digester's own passes of the fleet-wide sweep, bounded and through indexes: projects not
 * scheduled yet get their next 09:00 (projects.digest_next_at IS NULL: new, or their time zone
 * changed); due projects get their day's digest row, at most one per project and local date (the
 * unique key), and move on to their next 09:00. Dispatching the digests whose step is due is the
 * job kit's (dispatchDueRows over DIGESTS_DUE). Times of the calendar come from the clock.
 */
import type { Db, Queryable } from '../../shared/db/index.js'
import type { Clock } from './clock.js'
import { followingDueAt, localDateOf, nextDueAt, zoneOrUtc } from './schedule.js'

/** Gives up to limit unscheduled projects their next 09:00; answers how many. */
export async function scheduleProjects(db: Queryable, clock: Clock, limit: number): Promise<number> {
  const { rows } = await db.query<{ id: string; timezone: string }>('SELECT id, timezone FROM projects WHERE digest_next_at IS NULL LIMIT $1', [limit])
  if (rows.length === 0) return 0
  const now = clock.now()
  // Only where the zone is still the one computed with: a change in between leaves it for the next pass.
  const { rowCount } = await db.query(
    `UPDATE projects p SET digest_next_at = d.at
       FROM unnest($1::uuid[], $2::text[], $3::timestamptz[]) AS d(id, timezone, at)
      WHERE p.id = d.id AND p.timezone = d.timezone AND p.digest_next_at IS NULL`,
    [rows.map((row) => row.id), rows.map((row) => row.timezone), rows.map((row) => nextDueAt(row.timezone, now))],
  )
  return rowCount ?? 0
}

/**
 * Opens the digests of up to limit due projects (their next 09:00 passed), in one transaction
 * with their move to the following 09:00; a row of the same project and local date already
 * there (another worker's, before a restart) is left as it is. Answers how many were opened.
 */
export async function openDueDigests(db: Db, clock: Clock, limit: number): Promise<number> {
  const now = clock.now()
  return db.withTransaction(async (client) => {
    const { rows } = await client.query<{ id: string; timezone: string; due: Date }>(
      `SELECT id, timezone, digest_next_at AS due FROM projects WHERE digest_next_at <= $1 ORDER BY digest_next_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now, limit],
    )
    if (rows.length === 0) return 0
    const ids = rows.map((row) => row.id)
    const { rowCount } = await client.query(
      `INSERT INTO digests (project_id, local_date, timezone, due_at, not_before)
       SELECT d.id, d.local_date, d.timezone, d.due, d.due FROM unnest($1::uuid[], $2::date[], $3::text[], $4::timestamptz[]) AS d(id, local_date, timezone, due)
       ON CONFLICT (project_id, local_date) DO NOTHING`,
      [ids, rows.map((row) => localDateOf(row.timezone, row.due)), rows.map((row) => zoneOrUtc(row.timezone)), rows.map((row) => row.due)],
    )
    await client.query(`UPDATE projects p SET digest_next_at = d.at FROM unnest($1::uuid[], $2::timestamptz[]) AS d(id, at) WHERE p.id = d.id`, [
      ids,
      rows.map((row) => followingDueAt(row.timezone, row.due, now)),
    ])
    return rowCount ?? 0
  })
}
