/**
 * The publish gate as the dashboard tells it (docs/known-problems.md, "Pipeline", step 5): the
 * thresholds a known problem must meet to be published, and how far it is from each. The matcher's
 * gate decides; this only reads the ticket's counts against the same numbers to say why.
 */

/** Confirmed checks a problem needs. */
export const PUBLISH_MIN_CONFIRMED = 3
/** Distinct users it must have been seen by. */
export const PUBLISH_MIN_USERS = 2
/** Share of its checks that confirmed it, at least. */
export const PUBLISH_MIN_SHARE = 0.4
/** A published problem is unpublished when its share falls below this... */
export const UNPUBLISH_BELOW_SHARE = 0.25
/** ...once it has this many checks. */
export const UNPUBLISH_AFTER_CHECKS = 10

/** The counts the gate reads off a ticket. */
export interface GateCounts {
  users: number
  checks_confirmed: number
  checks_refuted: number
  checks_inconclusive: number
  published_at: Date | null
  unpublished_at: Date | null
}

/** One threshold: what the problem has, what it needs, and whether that is met. */
export interface Threshold {
  name: 'confirmed' | 'users' | 'share'
  label: string
  met: boolean
}

/** Published now: published, and not unpublished since. */
export function isPublished(problem: Pick<GateCounts, 'published_at' | 'unpublished_at'>): boolean {
  return problem.published_at !== null && (problem.unpublished_at === null || problem.unpublished_at < problem.published_at)
}

/** All its checks, whatever their verdict. */
export function checkCount(problem: Pick<GateCounts, 'checks_confirmed' | 'checks_refuted' | 'checks_inconclusive'>): number {
  return problem.checks_confirmed + problem.checks_refuted + problem.checks_inconclusive
}

/** The confirmed share of its checks, 0 without any. */
export function confirmedShare(problem: Pick<GateCounts, 'checks_confirmed' | 'checks_refuted' | 'checks_inconclusive'>): number {
  const total = checkCount(problem)
  return total === 0 ? 0 : problem.checks_confirmed / total
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`
}

/** The three thresholds as people read them: "3 of 3 confirmed checks", "2 of 2 users", "60% of 40% confirmed". */
export function thresholds(problem: GateCounts): Threshold[] {
  const share = confirmedShare(problem)
  return [
    { name: 'confirmed', label: `${problem.checks_confirmed} of ${PUBLISH_MIN_CONFIRMED} confirmed checks`, met: problem.checks_confirmed >= PUBLISH_MIN_CONFIRMED },
    { name: 'users', label: `${problem.users} of ${PUBLISH_MIN_USERS} users`, met: problem.users >= PUBLISH_MIN_USERS },
    { name: 'share', label: `${percent(share)} of ${percent(PUBLISH_MIN_SHARE)} of checks confirmed`, met: checkCount(problem) > 0 && share >= PUBLISH_MIN_SHARE },
  ]
}

/** True when a published problem's share has fallen far enough for the gate to unpublish it. */
export function dueForUnpublishing(problem: GateCounts): boolean {
  return isPublished(problem) && checkCount(problem) >= UNPUBLISH_AFTER_CHECKS && confirmedShare(problem) < UNPUBLISH_BELOW_SHARE
}
