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

/** Moves several issues to one status with no reason (opening their investigations), in one statement in tx. */
export async function setIssuesStatus(tx: EntityManager, issueIds: readonly string[], status: string): Promise<void> {
  if (issueIds.length === 0) return
  // The ids travel as one JSON text: the ORM's raw bindings would spread a JS array into a list.
  await tx.execute("UPDATE issues SET status = ?, reason_code = '', reason_message = '' WHERE id IN (SELECT jsonb_array_elements_text(?::jsonb)::uuid)", [status, JSON.stringify(issueIds)])
}
