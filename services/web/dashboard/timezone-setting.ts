/**
 * The project's time zone (the daily digest comes at 09:00 in it): an IANA name, checked with
 * luxon, stored with the digest's next due instant cleared so that the digester's next sweep
 * schedules it again in the new zone (a day already sent is not sent again: one digest per local date).
 */
import type { Queryable } from '../../../shared/db.js'
import { isTimeZone } from '../../digester/schedule.js'

export type TimezoneOutcome = { kind: 'saved' | 'unchanged'; zone: string } | { kind: 'unknown_zone'; text: string }

/** Sets projectId's time zone to text (trimmed) for its owner userId. */
export async function setTimezone(db: Queryable, userId: string, projectId: string, text: string): Promise<TimezoneOutcome> {
  const zone = text.trim()
  if (!isTimeZone(zone)) return { kind: 'unknown_zone', text: zone.slice(0, 100) }
  const { rowCount } = await db.query(`UPDATE projects SET timezone = $3, digest_next_at = NULL WHERE id = $1 AND owner_id = $2 AND timezone <> $3`, [projectId, userId, zone])
  return { kind: rowCount ? 'saved' : 'unchanged', zone }
}
