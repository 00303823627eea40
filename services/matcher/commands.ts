/**
 * What other actors ask of the matcher (its commands) about its tickets: the investigator has a
 * friction-kind issue's ticket follow the issue's status, and a person answers the publish gate's
 * same-fix question. The matcher owns tickets; each runs in the caller's transaction (tx) or on the
 * pool it is handed.
 */
import { runSql, type SqlTx } from '../../shared/sql-tx.js'

/** The states a ticket takes from its issue (tickets.state's check less candidate, awaiting_approval and archived, which are not the investigator's). */
const MIRRORED = ['queued', 'analyzing', 'insight', 'needs_human', 'investigated', 'fixing', 'pr_draft', 'pr_created']

/**
 * The tickets of friction-kind issues whose status just moved (in tx) take that status as their
 * state (docs/known-problems.md, "Investigating a known problem"); an archived ticket stays
 * archived. Issues of other kinds have no ticket and cost nothing.
 */
export async function followIssueStatus(tx: SqlTx, moved: ReadonlyArray<{ id: string; kind: string; status: string }>): Promise<void> {
  const friction = moved.filter((issue) => issue.kind === 'friction' && MIRRORED.includes(issue.status))
  if (friction.length === 0) return
  await runSql(
    tx,
    `UPDATE tickets t SET state = m.status, updated_at = now(), version = t.version + 1
       FROM jsonb_to_recordset(?::jsonb) AS m(id uuid, status text)
      WHERE t.issue_id = m.id AND t.state <> 'archived' AND t.state <> m.status`,
    [JSON.stringify(friction.map(({ id, status }) => ({ id, status })))],
  )
}

/** A person's answer to the same-fix question. */
export type SameFixAnswer = 'same' | 'different'

/**
 * Records a person's answer to the publish gate's same-fix question on ticketId of projectId.
 * Only a question that was asked can be answered, and the other problem must still be there to
 * answer about: false when none is open.
 */
export async function answerSameFix(tx: SqlTx, projectId: string, ticketId: string, answer: SameFixAnswer): Promise<boolean> {
  const rows = await runSql(
    tx,
    `UPDATE tickets SET same_fix = ?, updated_at = now(), version = version + 1
      WHERE id = ? AND project_id = ? AND same_fix IS NOT NULL AND same_fix_ticket_id IS NOT NULL
     RETURNING id`,
    [answer, ticketId, projectId],
  )
  return rows.length > 0
}
