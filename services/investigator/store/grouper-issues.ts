/**
 * Where the investigator has an issue's status (issues.status and its reason) follow its latest
 * investigation or fix. The grouper owns issues and the matcher owns tickets, so it asks them
 * through their commands, in the transaction of its own write (tx): the issue list never shows a
 * state its job does not have, and a friction-kind issue's known problem (tickets.state) moves with
 * it (docs/known-problems.md, "Investigating a known problem").
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import { setIssueStatus as moveIssue, setIssuesStatus as moveIssues } from '../../grouper/commands/issue-status.js'
import { followIssueStatus } from '../../matcher/commands.js'

/** Moves issues.status (and its reason), and a friction-kind issue's ticket with it, in the transaction of tx. */
export async function setIssueStatus(tx: EntityManager, issueId: string, status: string, reasonCode: string, reasonMessage: string): Promise<void> {
  await followIssueStatus(tx, await moveIssue(tx, issueId, status, { code: reasonCode, message: reasonMessage }))
}

/** Moves several issues to one status with no reason (opening their investigations), their tickets with them, in tx. */
export async function setIssuesStatus(tx: EntityManager, issueIds: readonly string[], status: string): Promise<void> {
  await followIssueStatus(tx, await moveIssues(tx, issueIds, status))
}
