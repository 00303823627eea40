/**
 * A delivered fix pull request's end, as the webhook or the poller saw it (docs/fixes.md,
 * "Following a pull request to its end"). In the caller's transaction: the fix's row (held), its
 * episode ended merged or closed, and what follows on the issue through the grouper's commands:
 * merged resolves it in the next release; closed unmerged puts its status back to investigated,
 * its triage untouched. Both write one pull_request line in the issue's history. Seeing an end
 * again changes nothing.
 */
import { LockMode } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import { recordIssueHistory, triageIssues } from '../../grouper/commands/triage.js'
import { setIssueStatus } from '../store/grouper-issues.js'
import { Fix } from '../store/fix-entities.js'

/** A pull request's state as the code host told it. */
export interface PullRequestSeen {
  state: 'open' | 'merged' | 'closed'
  mergedAt: Date | null
  closedAt: Date | null
  mergeSha: string
}

/** What seeing it did: ended the episode, noted it open, or nothing (already ended, or not delivered). */
export type SeenOutcome = 'merged' | 'closed' | 'open' | 'unchanged'

/** The service part the issue's history names for these changes. */
const FOLLOWER = { kind: 'service', id: 'pull-request-follower', label: 'the service' } as const

/** Applies seen to fix fixId in tx (its row held until the commit); answers what it did. */
export async function applyPullRequestSeen(tx: EntityManager, fixId: string, seen: PullRequestSeen, now = new Date()): Promise<SeenOutcome> {
  const fix = await tx.findOne(Fix, fixId, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true })
  // Ended already (the webhook, then the poller), or never delivered: nothing to follow.
  if (!fix || fix.prNumber === null || (fix.state !== 'pr_draft' && fix.state !== 'pr_created')) return 'unchanged'
  fix.prCheckedAt = now
  if (seen.state === 'open') {
    fix.prState = 'open'
    await tx.flush()
    return 'open'
  }
  const delivered = fix.state
  const number = fix.prNumber
  fix.prState = seen.state
  fix.state = seen.state
  fix.prClosedAt = seen.closedAt ?? seen.mergedAt ?? now
  if (seen.state === 'merged') {
    fix.prMergedAt = seen.mergedAt ?? now
    fix.prMergeSha = seen.mergeSha
  }
  await tx.flush()
  // A later fix of the issue may have delivered to the same pull request (its branch updated): they end together, one history line.
  await tx.execute(
    `UPDATE fixes SET state = ?, pr_state = ?, pr_merged_at = ?, pr_closed_at = ?, pr_merge_sha = ?, pr_checked_at = ?, version = version + 1
      WHERE issue_id = ? AND repo = ? AND pr_number = ? AND id <> ? AND state IN ('pr_draft', 'pr_created')`,
    [fix.state, fix.prState, fix.prMergedAt, fix.prClosedAt, fix.prMergeSha, now, fix.issueId, fix.repo, number, fix.id],
  )
  const detail = { number, url: fix.prUrl, fix: fix.id, ...(seen.mergeSha ? { merge_sha: seen.mergeSha } : {}) }
  if (seen.state === 'merged') {
    const reason = `fix pull request #${number} merged`
    await triageIssues(tx, fix.projectId, [fix.issueId], { action: 'resolve', mode: 'next_release' }, FOLLOWER, reason)
    await recordIssueHistory(tx, fix.projectId, fix.issueId, history(delivered, 'merged', reason, detail))
    return 'merged'
  }
  const reason = `fix pull request #${number} closed without merging`
  await recordIssueHistory(tx, fix.projectId, fix.issueId, history(delivered, 'closed', reason, detail))
  if (await isLatestAndShown(tx, fix)) await setIssueStatus(tx, fix.issueId, 'investigated', '', '')
  return 'closed'
}

function history(fromState: string, toState: string, reason: string, detail: Record<string, unknown>) {
  return { actorKind: FOLLOWER.kind, actorId: FOLLOWER.id, actorLabel: FOLLOWER.label, action: 'pull_request' as const, fromState, toState, reason, detail }
}

/** Whether the issue's status still shows this pull request: a later investigation, or a later fix with a pull request of its own, keeps the status it set. */
async function isLatestAndShown(tx: EntityManager, fix: Fix): Promise<boolean> {
  // Times compared in SQL: the row's microseconds would make the fix newer than its own JavaScript Date.
  const rows = await tx.execute<Array<{ shown: boolean }>>(
    `SELECT i.status IN ('pr_draft', 'pr_created')
            AND NOT EXISTS (SELECT 1 FROM fixes f WHERE f.issue_id = i.id AND f.created_at > x.created_at AND f.pr_number IS DISTINCT FROM x.pr_number)
            AND NOT EXISTS (SELECT 1 FROM investigations v WHERE v.issue_id = i.id AND v.created_at > x.created_at) AS shown
       FROM fixes x JOIN issues i ON i.id = x.issue_id WHERE x.id = ?`,
    [fix.id],
  )
  return rows[0]?.shown === true
}
