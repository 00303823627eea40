/**
 * A known problem's friction-kind issue (issues.kind = 'friction', fingerprint 'ticket:<ticket id>')
 * as the matcher asks the grouper to keep it: opened with its ticket and kept in step as findings
 * join it. The grouper owns the table; these run in the matcher's transaction (tx), so an issue
 * never exists without its ticket nor a ticket without its issue.
 */
import { runSql, type SqlTx } from '../../../shared/db/sql-tx.js'

/** Longest issue title taken from a narrative; the rest is on the ticket. */
const TITLE_MAX = 200
/** Longest culprit (target on page). */
const CULPRIT_MAX = 300

export interface FrictionIssue {
  projectId: string
  ticketId: string
  narrative: string
  page: string
  target: string
  /** The ticket's state, which the issue's status mirrors. */
  state: string
  at: Date
  users: number
}

/** The fingerprint of a ticket's issue. */
export function ticketFingerprint(ticketId: string): string {
  return `ticket:${ticketId}`
}

/** One line of at most max characters: whitespace (newlines included) collapsed. */
function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`
}

/**
 * Opens the friction-kind issue of a new ticket in tx and answers its id. Its grouping_version is
 * the project's, as the grouper fills it; its status mirrors the ticket's state; its title is the
 * narrative's first words (untrusted text, escaped where it is shown).
 */
export async function openFrictionIssue(tx: SqlTx, issue: FrictionIssue): Promise<string> {
  const title = oneLine(issue.narrative, TITLE_MAX) || `${issue.target} on ${issue.page}`
  const rows = await runSql<{ id: string }>(
    tx,
    `INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, culprit, first_seen, last_seen, user_count)
     SELECT p.id, 'friction', ?, p.grouping_version, ?, ?, ?, ?, ?, ? FROM projects p WHERE p.id = ?
     RETURNING id`,
    [ticketFingerprint(issue.ticketId), issue.state, title, oneLine(`${issue.target} on ${issue.page}`, CULPRIT_MAX), issue.at, issue.at, issue.users, issue.projectId],
  )
  const id = rows[0]?.id
  if (!id) throw new Error(`project ${issue.projectId} is gone: no issue opened for ticket ${issue.ticketId}`)
  return id
}

/** A finding joined the issue's ticket: its last sighting and its distinct users follow, in tx. */
export async function touchFrictionIssue(tx: SqlTx, issueId: string, at: Date, users: number): Promise<void> {
  await runSql(tx, 'UPDATE issues SET last_seen = GREATEST(last_seen, ?), user_count = ? WHERE id = ?', [at, users, issueId])
}
