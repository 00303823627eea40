/**
 * The publish gate as the dashboard tells it (docs/known-problems.md, "Checks and the publish
 * gate"): the thresholds a known problem must meet to be published, and how far it is from each.
 * The matcher's gate decides; the page reads the ticket's counts against the gate's own numbers and
 * share (imported, so the two cannot disagree) to say why.
 */
import { confirmedShare, gateAction, type GateCounts } from '../confirm/publish-gate.js'
import { PUBLISH_MIN_CONFIRMED, PUBLISH_MIN_SHARE, PUBLISH_MIN_USERS, UNPUBLISH_BELOW_SHARE, UNPUBLISH_MIN_CHECKS } from '../confirm/thresholds.js'

export { PUBLISH_MIN_CONFIRMED, PUBLISH_MIN_SHARE, PUBLISH_MIN_USERS, UNPUBLISH_BELOW_SHARE, UNPUBLISH_MIN_CHECKS }

/** The ticket's columns the gate reads. */
export interface TicketCounts {
  users: number
  checks_confirmed: number
  checks_refuted: number
  checks_inconclusive: number
  published_at: Date | null
  unpublished_at: Date | null
}

/** One threshold: where the problem stands against it, and whether that is met. */
export interface Threshold {
  name: 'confirmed' | 'users' | 'share'
  label: string
  met: boolean
}

/** Published now, as the gate counts it: published, and not unpublished since (publishing clears unpublished_at). */
export function isPublished(problem: Pick<TicketCounts, 'published_at' | 'unpublished_at'>): boolean {
  return problem.published_at !== null && problem.unpublished_at === null
}

function counts(problem: TicketCounts): GateCounts {
  return { confirmed: problem.checks_confirmed, refuted: problem.checks_refuted, inconclusive: problem.checks_inconclusive, users: problem.users, published: isPublished(problem) }
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`
}

/**
 * The three thresholds as people read them: "3 of 3 confirmed checks", "2 of 2 users", "60% of 40%
 * of conclusive checks confirmed" (the share leaves inconclusive checks out, as the gate does; with
 * no conclusive check it is "no conclusive check yet", missed).
 */
export function thresholds(problem: TicketCounts): Threshold[] {
  const share = confirmedShare(counts(problem))
  return [
    { name: 'confirmed', label: `${problem.checks_confirmed} of ${PUBLISH_MIN_CONFIRMED} confirmed checks`, met: problem.checks_confirmed >= PUBLISH_MIN_CONFIRMED },
    { name: 'users', label: `${problem.users} of ${PUBLISH_MIN_USERS} users`, met: problem.users >= PUBLISH_MIN_USERS },
    {
      name: 'share',
      label: share === undefined ? `no conclusive check yet (${percent(PUBLISH_MIN_SHARE)} confirmed needed)` : `${percent(share)} of ${percent(PUBLISH_MIN_SHARE)} of conclusive checks confirmed`,
      met: share !== undefined && share >= PUBLISH_MIN_SHARE,
    },
  ]
}

/** True when a published problem's share has fallen far enough for the gate to unpublish it at its next pass. */
export function dueForUnpublishing(problem: TicketCounts): boolean {
  return gateAction(counts(problem)) === 'unpublish'
}
