/**
 * The numbers confirmation and the publish gate run on (docs/known-problems.md, "Checks and the
 * publish gate"). Where a number comes from the reference facts (/work/shared/reference.md,
 * "Known-problem publication") or the spec's limits, it says so; the rest are this service's
 * choices, with the reason beside them.
 */

/** The matched count at which a ticket's first batch of checks starts (reference; the column's default). */
export const FIRST_CHECKS_AT = 3
/** After each batch, the next starts this many matched recordings later (reference: "then every 10 more"). */
export const CHECKS_EVERY = 10
/** Recordings one batch checks at most (reference: "in batches of 10"). */
export const CHECKS_PER_BATCH = 10
// Checks a project may run in one UTC day: a setting, FRICTION_PROJECT_DAILY_CHECKS (shared/config/friction.ts).

/** Confirmed checks a ticket needs to be published (reference). */
export const PUBLISH_MIN_CONFIRMED = 3
/** Distinct users among its matched recordings it needs to be published (reference). */
export const PUBLISH_MIN_USERS = 2
/**
 * The confirmed share of its conclusive checks (confirmed / (confirmed + refuted)) it needs to be
 * published (reference: "confirmed share at least 40%"). Inconclusive checks are left out of the
 * share: a recording that visited the screen but never clicked the target says nothing about the
 * problem, and counting it would keep a real problem on a busy screen unpublished for ever.
 */
export const PUBLISH_MIN_SHARE = 0.4
/** A published ticket whose confirmed share falls below this is unpublished (reference)… */
export const UNPUBLISH_BELOW_SHARE = 0.25
/** …once it has at least this many checks of any verdict (reference: "after 10 checks"). */
export const UNPUBLISH_MIN_CHECKS = 10

/**
 * Two published tickets of one environment whose subjects (what matching embeds: a click's control
 * on its screen, an error's message) are at most this cosine distance apart (cosine similarity 0.65
 * or more) may share one fix, and the gate asks: a rage and a dead click on one control, two errors
 * with near messages. Not from the reference: wider than matching's join distance (0.25,
 * MAX_JOIN_DISTANCE), and narrow enough that unrelated problems are rarely asked about; the answer
 * is a person's (or the investigator's), so a question too many costs a click, never a wrong merge.
 */
export const SAME_FIX_MAX_DISTANCE = 0.35
