/**
 * The matching rule: which ticket of the shortlist a finding joins, if any. Pure, so its edges are
 * tested without a database.
 */
import type { ShortlistEntry } from '../store/entities.js'

/**
 * The farthest cosine distance at which a finding joins a ticket: 0.25, a cosine similarity of at
 * least 0.75. The reference notes a floor near 0.75 as what left near-duplicates apart in practice:
 * stricter splits one problem into many known problems (each needing its own checks), looser
 * merges different problems on the same screen. Inclusive: a distance of exactly 0.25 joins.
 */
export const MAX_JOIN_DISTANCE = 0.25

/**
 * The ticket a finding joins: among the shortlist's tickets (all of the finding's kind) within
 * MAX_JOIN_DISTANCE, one seen on the finding's screen first, then the nearest; ties go to more
 * confirmed checks, then the ticket id (so a rerun decides the same). Undefined: create a ticket.
 */
export function chooseTicket(shortlist: readonly ShortlistEntry[]): ShortlistEntry | undefined {
  let best: ShortlistEntry | undefined
  for (const entry of shortlist) {
    if (entry.distance === null || !(entry.distance <= MAX_JOIN_DISTANCE)) continue
    if (!best || before(entry, best)) best = entry
  }
  return best
}

function before(a: ShortlistEntry, b: ShortlistEntry): boolean {
  if (a.sharesScreen !== b.sharesScreen) return a.sharesScreen
  if (a.distance !== b.distance) return a.distance! < b.distance!
  if (a.checksConfirmed !== b.checksConfirmed) return a.checksConfirmed > b.checksConfirmed
  return a.ticketId < b.ticketId
}
