/**
 * The project's time zone (the daily digest comes at 09:00 in it): an IANA name, checked with
 * luxon, stored in the transaction that asks the digester to schedule the project again in the new
 * zone (rescheduleDigest).
 */
import type { Db } from '../../../shared/db/index.js'
import { rescheduleDigest } from '../../digester/commands.js'
import { isTimeZone } from '../../digester/read.js'
import { OWNER_OF_PROJECT } from '../projects/project-queries.js'

export type TimezoneOutcome = { kind: 'saved' | 'unchanged'; zone: string } | { kind: 'unknown_zone'; text: string }

/** Sets projectId's time zone to text (trimmed) for its owner userId. */
export async function setTimezone(db: Db, userId: string, projectId: string, text: string): Promise<TimezoneOutcome> {
  const zone = text.trim()
  if (!isTimeZone(zone)) return { kind: 'unknown_zone', text: zone.slice(0, 100) }
  const saved = await db.withTransaction(async (tx) => {
    const { rowCount } = await tx.query(`UPDATE projects SET timezone = $3 WHERE id = $1 AND ${OWNER_OF_PROJECT} AND timezone <> $3`, [projectId, userId, zone])
    if (rowCount) await rescheduleDigest(tx, projectId)
    return Boolean(rowCount)
  })
  return { kind: saved ? 'saved' : 'unchanged', zone }
}
