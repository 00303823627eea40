/**
 * The issue-changes stream's entries: which issues gained events in a grouper batch, and the
 * releases those events named. The grouper adds one entry after each commit (also for a batch
 * redelivered whole, so a lost entry is made again); the investigator's admission and the alerter
 * read them. The alerter's fields (created, regressed, events, receivedAt) came later: an entry
 * written before them reads as false, false, 0 and 0.
 */

export interface IssueChange {
  issueId: string
  projectId: string
  releases: string[]
  /** The batch opened the issue. */
  created: boolean
  /** The batch's events regressed the resolved issue (the grouper reopened it in the batch's transaction). */
  regressed: boolean
  /** The batch's events the grouper stored for the issue (0 on a redelivered batch: they were stored before). */
  events: number
  /** The earliest ingress receipt (ms since the epoch) of the batch's events of the issue; 0 when unknown. */
  receivedAt: number
}

/** The stream entry's fields for a batch's changes. */
export function changeFields(changes: readonly IssueChange[]): Record<string, string> {
  return { changes: JSON.stringify(changes.map((c) => ({ i: c.issueId, p: c.projectId, r: c.releases, c: c.created ? 1 : 0, g: c.regressed ? 1 : 0, n: c.events, t: c.receivedAt }))) }
}

/** The changes an entry carries; throws for an entry that is not one (it is then dead-lettered, not skipped). */
export function changesOf(fields: Record<string, string>): IssueChange[] {
  const parsed = JSON.parse(fields.changes ?? 'null') as Array<{ i: string; p: string; r: unknown; c?: unknown; g?: unknown; n?: unknown; t?: unknown }>
  if (!Array.isArray(parsed)) throw new Error('issue-changes entry without a changes list')
  return parsed.map((c) => ({
    issueId: String(c.i),
    projectId: String(c.p),
    releases: Array.isArray(c.r) ? c.r.map(String) : [],
    created: c.c === 1,
    regressed: c.g === 1,
    events: count(c.n),
    receivedAt: count(c.t),
  }))
}

/** A non-negative whole number, or 0 (an old entry, or one that is not a number). */
function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0
}
