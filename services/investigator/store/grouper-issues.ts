/**
 * The one place the investigator writes the grouper's table: an issue's status and its reason
 * (issues.status, reason_code, reason_message) follow its latest investigation or fix. Reached with
 * SQL in the transaction of the investigator's own write (tx), so the issue list never shows a
 * state its job does not have. Nothing else of the grouper's tables is written here.
 */
import type { EntityManager } from '@mikro-orm/postgresql'

/** Moves issues.status (and its reason) in the transaction of tx. */
export async function setIssueStatus(tx: EntityManager, issueId: string, status: string, reasonCode: string, reasonMessage: string): Promise<void> {
  await tx.execute('UPDATE issues SET status = ?, reason_code = ?, reason_message = ? WHERE id = ?', [status, reasonCode, reasonMessage, issueId])
}
