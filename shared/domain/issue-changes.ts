/**
 * The issue-changes stream's entries: which issues gained events in a grouper batch, and the
 * releases those events named. The grouper adds one entry after each commit (also for a batch
 * redelivered whole, so a lost entry is made again); the investigator's admission reads them.
 */

export interface IssueChange {
  issueId: string
  projectId: string
  releases: string[]
}

/** The stream entry's fields for a batch's changes. */
export function changeFields(changes: readonly IssueChange[]): Record<string, string> {
  return { changes: JSON.stringify(changes.map((c) => ({ i: c.issueId, p: c.projectId, r: c.releases }))) }
}

/** The changes an entry carries; throws for an entry that is not one (it is then dead-lettered, not skipped). */
export function changesOf(fields: Record<string, string>): IssueChange[] {
  const parsed = JSON.parse(fields.changes ?? 'null') as Array<{ i: string; p: string; r: unknown }>
  if (!Array.isArray(parsed)) throw new Error('issue-changes entry without a changes list')
  return parsed.map((c) => ({ issueId: String(c.i), projectId: String(c.p), releases: Array.isArray(c.r) ? c.r.map(String) : [] }))
}
