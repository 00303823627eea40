/**
 * When a project's digest is due: 09:00 on the wall clock of its own time zone (an IANA name,
 * projects.timezone), whatever daylight saving does to the offset that day. All of the calendar
 * arithmetic is luxon's; nothing here adds hours by hand.
 */
import { DateTime, IANAZone } from 'luxon'

/** The local hour a digest is due at (spec: "around 09:00 in the project's own timezone"). */
export const DIGEST_HOUR = 9
/** The same hour as people read it (pages, the chat's test message). */
export const DIGEST_TIME = `${String(DIGEST_HOUR).padStart(2, '0')}:00`

/** True when name is a time zone luxon (and so the runtime's ICU data) knows. */
export function isTimeZone(name: string): boolean {
  return typeof name === 'string' && name.length > 0 && name.length <= 64 && IANAZone.isValidZone(name)
}

/** The zone to compute with: an unknown name (written around the settings page) counts as UTC. */
export function zoneOrUtc(name: string): string {
  return isTimeZone(name) ? name : 'UTC'
}

/** The first 09:00 local in zone strictly after the instant after. */
export function nextDueAt(zone: string, after: Date): Date {
  const local = DateTime.fromJSDate(after, { zone: zoneOrUtc(zone) })
  let due = local.set({ hour: DIGEST_HOUR, minute: 0, second: 0, millisecond: 0 })
  if (due.toMillis() <= local.toMillis()) due = local.plus({ days: 1 }).set({ hour: DIGEST_HOUR, minute: 0, second: 0, millisecond: 0 })
  return due.toJSDate()
}

/** The local date (YYYY-MM-DD) of instant in zone: the day a run is for. */
export function localDateOf(zone: string, instant: Date): string {
  return DateTime.fromJSDate(instant, { zone: zoneOrUtc(zone) }).toISODate()!
}

/**
 * Where a due project goes next: the 09:00 after the later of its due instant and now. Normally
 * that is the next day's; a fleet that was down over several 09:00s sends one digest for the
 * first missed day (its window covers the rest, up to 7 days) instead of one per missed day.
 */
export function followingDueAt(zone: string, dueAt: Date, now: Date): Date {
  return nextDueAt(zone, dueAt.getTime() > now.getTime() ? dueAt : now)
}
