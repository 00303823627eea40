/**
 * The matching rule: which ticket of the shortlist a finding joins, if any. Pure, so its edges are
 * tested without a database.
 */
import type { FindingKind, ShortlistEntry } from '../store/entities.js'

/**
 * The farthest cosine distance at which an error after a click joins a ticket of its control:
 * 0.25, a cosine similarity of at least 0.75. The reference notes a floor near 0.75 as what left
 * near-duplicates apart in practice: stricter splits one problem into many known problems (each
 * needing its own checks), looser merges different problems. Inclusive: exactly 0.25 joins.
 */
export const MAX_JOIN_DISTANCE = 0.25

/**
 * Whether a finding of kind may join a ticket of its own control (entry.sameControl) at the
 * entry's distance. The target decides first: a ticket of another control is never joined,
 * however near. Then nearness measures what differs between two findings of one control:
 * - a rage or dead click: nothing does (its subject is its control on its screen), so the control
 *   is the problem and any distance joins; the distance only orders two tickets of one control;
 * - an error after a click: its message (its subject), within MAX_JOIN_DISTANCE; where the two
 *   vectors cannot be compared (another model, or a ticket's vector from before migration 081),
 *   the same message word for word.
 */
export function joins(kind: FindingKind, entry: ShortlistEntry): boolean {
  return entry.sameControl && nearEnough(kind, entry.distance, entry.sameSubject)
}

/** Whether two findings of kind on one control are one problem, by their subjects' distance (null: not comparable) or, without one, their words (joins). */
export function nearEnough(kind: FindingKind, distance: number | null, sameSubject: boolean): boolean {
  if (kind !== 'error_after_click') return true
  return distance === null ? sameSubject : distance <= MAX_JOIN_DISTANCE
}

/**
 * The ticket a finding of kind joins: among the shortlist's tickets it may join, the nearest (one
 * without a distance last); ties go to more confirmed checks, then the ticket id (so a rerun
 * decides the same). Undefined: create a ticket.
 */
export function chooseTicket(kind: FindingKind, shortlist: readonly ShortlistEntry[]): ShortlistEntry | undefined {
  let best: ShortlistEntry | undefined
  for (const entry of shortlist) {
    if (!joins(kind, entry)) continue
    if (!best || before(entry, best)) best = entry
  }
  return best
}

function before(a: ShortlistEntry, b: ShortlistEntry): boolean {
  if (a.distance !== b.distance) {
    if (a.distance === null) return false
    if (b.distance === null) return true
    return a.distance < b.distance
  }
  if (a.checksConfirmed !== b.checksConfirmed) return a.checksConfirmed > b.checksConfirmed
  return a.ticketId < b.ticketId
}
