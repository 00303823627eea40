/**
 * The one place the investigator writes the grouper's table: an issue's status and its reason
 * (issues.status, reason_code, reason_message) follow its latest investigation or fix. Reached with
 * SQL in the transaction of the investigator's own write (tx), so the issue list never shows a
 * state its job does not have. A friction-kind issue's known problem (tickets.state) moves with it
 * in the same statement (docs/known-problems.md, "Investigating a known problem"); an archived one
 * stays archived. Nothing else of the grouper's or the matcher's tables is written here.
 */
import type { EntityManager } from '@mikro-orm/postgresql'

/** The states a ticket can mirror (tickets.state's check less candidate, awaiting_approval and archived, which are not the investigator's). */
const MIRRORED = ['queued', 'analyzing', 'insight', 'needs_human', 'investigated', 'fixing', 'pr_draft', 'pr_created']

/**
 * The tickets of the moved issues take their status: one join on the statement's RETURNING rows,
 * so an error issue (no ticket) costs one index probe and no second round trip.
 */
const MIRROR_TICKETS = `UPDATE tickets t SET state = moved.status, updated_at = now(), version = t.version + 1
  FROM moved WHERE t.issue_id = moved.id AND moved.kind = 'friction' AND t.state <> 'archived' AND t.state <> moved.status
   AND moved.status = ANY (ARRAY[${MIRRORED.map((state) => `'${state}'`).join(', ')}])`

/** Moves issues.status (and its reason), and a friction-kind issue's ticket with it, in the transaction of tx. */
export async function setIssueStatus(tx: EntityManager, issueId: string, status: string, reasonCode: string, reasonMessage: string): Promise<void> {
  await tx.execute(
    `WITH moved AS (UPDATE issues SET status = ?, reason_code = ?, reason_message = ? WHERE id = ? RETURNING id, kind, status) ${MIRROR_TICKETS}`,
    [status, reasonCode, reasonMessage, issueId],
  )
}

/** Moves several issues to one status with no reason (opening their investigations), their tickets with them, in one statement in tx. */
export async function setIssuesStatus(tx: EntityManager, issueIds: readonly string[], status: string): Promise<void> {
  if (issueIds.length === 0) return
  // The ids travel as one JSON text: the ORM's raw bindings would spread a JS array into a list.
  await tx.execute(
    `WITH moved AS (UPDATE issues SET status = ?, reason_code = '', reason_message = '' WHERE id IN (SELECT jsonb_array_elements_text(?::jsonb)::uuid) RETURNING id, kind, status) ${MIRROR_TICKETS}`,
    [status, JSON.stringify(issueIds)],
  )
}
