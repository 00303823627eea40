/**
 * An issue's status (issues.status, reason_code, reason_message) as other actors move it: the
 * investigator as its investigations and fixes go (with why the latest one stopped), the matcher
 * as a known problem's ticket is published or unpublished. The grouper owns the table; these run in
 * the caller's transaction (tx), so the issue list never shows a state the caller's own rows do not
 * have. Each answers the issues it moved, with their kind, so the caller can have what follows an
 * issue's status (a friction-kind issue's ticket) follow it in the same transaction.
 */
import { runSql, type SqlTx } from '../../../shared/db/sql-tx.js'

/** An issue whose status a command moved. */
export interface MovedIssue {
  id: string
  kind: string
  status: string
}

/** Why an issue's latest investigation or fix stopped (needs_human), '' and '' otherwise. */
export interface IssueReason {
  code: string
  message: string
}

/** Moves one issue's status in tx, and its reason when one is given (else the reason is kept). */
export async function setIssueStatus(tx: SqlTx, issueId: string, status: string, reason?: IssueReason): Promise<MovedIssue[]> {
  if (reason === undefined) return runSql<MovedIssue>(tx, 'UPDATE issues SET status = ? WHERE id = ? RETURNING id, kind, status', [status, issueId])
  return runSql<MovedIssue>(tx, 'UPDATE issues SET status = ?, reason_code = ?, reason_message = ? WHERE id = ? RETURNING id, kind, status', [status, reason.code, reason.message, issueId])
}

/** Moves several issues to one status with no reason (opening their investigations), in one statement in tx. */
export async function setIssuesStatus(tx: SqlTx, issueIds: readonly string[], status: string): Promise<MovedIssue[]> {
  if (issueIds.length === 0) return []
  return runSql<MovedIssue>(
    tx,
    `UPDATE issues SET status = ?, reason_code = '', reason_message = '' WHERE id IN (SELECT jsonb_array_elements_text(?::jsonb)::uuid) RETURNING id, kind, status`,
    [status, JSON.stringify(issueIds)],
  )
}
