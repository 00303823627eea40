/**
 * Pull requests an agent opened itself and linked to an issue (the tool server's
 * issue_pull_requests), followed like the service's own (docs/fixes.md, "Following a pull request
 * to its end"): a pull request of the project's repository, read by the poller or told by the
 * webhook, that was merged resolves its issue in the next release; one closed unmerged is noted.
 * No fix episode ends (the service opened none). The follower writes only the row's pr_state,
 * pr_checked_at and pr_ended_at; the rest of the row stays the tool server's.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Db } from '../../../shared/db/index.js'
import type { PullRequestPolling } from '../../../shared/config/index.js'
import type { CodehostPlugin } from '../../../shared/plugins/types.js'
import { recordIssueHistory, triageIssues } from '../../grouper/commands/triage.js'
import type { PullRequestSeen } from './end.js'

const FOLLOWER = { kind: 'service', id: 'pull-request-follower', label: 'the service' } as const

interface LinkedRow {
  id: string
  project_id: string
  issue_id: string
  url: string
  pr_state: string
}

/** The repository (owner/name) and number a GitHub pull request address names, or undefined. */
export function pullOfUrl(url: string): { repo: string; number: number } | undefined {
  const match = /^https:\/\/github\.com\/([\w.-]+\/[\w.-]+)\/pull\/(\d{1,9})(?:[/?#].*)?$/i.exec(url)
  return match ? { repo: match[1]!, number: Number(match[2]) } : undefined
}

/** Applies seen to the linked row rowId in tx (held until the commit); answers what it did. */
export async function applyLinkedSeen(tx: EntityManager, rowId: string, seen: PullRequestSeen, now = new Date()): Promise<'merged' | 'closed' | 'open' | 'unchanged'> {
  const [row] = await tx.execute<LinkedRow[]>(`SELECT id, project_id, issue_id, url, pr_state FROM issue_pull_requests WHERE id = ? FOR UPDATE`, [rowId])
  if (!row || (row.pr_state !== '' && row.pr_state !== 'open')) return 'unchanged'
  if (seen.state === 'open') {
    await tx.execute(`UPDATE issue_pull_requests SET pr_state = 'open', pr_checked_at = ? WHERE id = ?`, [now, rowId])
    return 'open'
  }
  await tx.execute(`UPDATE issue_pull_requests SET pr_state = ?, pr_checked_at = ?, pr_ended_at = ? WHERE id = ?`, [seen.state, now, seen.mergedAt ?? seen.closedAt ?? now, rowId])
  const number = pullOfUrl(row.url)?.number
  const reason = `linked pull request #${number} ${seen.state === 'merged' ? 'merged' : 'closed without merging'}`
  if (seen.state === 'merged') await triageIssues(tx, row.project_id, [row.issue_id], { action: 'resolve', mode: 'next_release' }, FOLLOWER, reason)
  await recordIssueHistory(tx, row.project_id, row.issue_id, { actorKind: FOLLOWER.kind, actorId: FOLLOWER.id, actorLabel: FOLLOWER.label, action: 'pull_request', fromState: 'linked', toState: seen.state, reason, detail: { number, url: row.url } })
  return seen.state
}

/** The linked rows of projectIds naming pull request number of repo, still followed. */
export async function linkedRowsOf(tx: EntityManager, projectIds: readonly string[], repo: string, number: number): Promise<string[]> {
  const rows = await tx.execute<Array<{ id: string; url: string }>>(
    `SELECT id, url FROM issue_pull_requests WHERE project_id IN (SELECT jsonb_array_elements_text(?::jsonb)::uuid) AND pr_state IN ('', 'open') AND url ILIKE ?`,
    [JSON.stringify(projectIds), `%/pull/${number}%`],
  )
  const names = (url: string): boolean => {
    const pull = pullOfUrl(url)
    return pull?.number === number && pull.repo.toLowerCase() === repo.toLowerCase()
  }
  return rows.filter((row) => names(row.url)).map((row) => row.id)
}

/** One poller pass over linked pull requests: at most perPass, the least recently read first. */
export async function pollLinkedPullRequests(options: { em: EntityManager; db: Db; codehost: CodehostPlugin | undefined; polling: PullRequestPolling }, now = new Date()): Promise<number> {
  const pullRequests = options.codehost?.pullRequests
  if (!pullRequests?.read || options.polling.everyMs === 0) return 0
  const { rows } = await options.db.query<LinkedRow & { repo: string; installation: string }>(
    `SELECT l.id, l.project_id, l.issue_id, l.url, l.pr_state, p.codehost_repo AS repo, p.codehost_installation_id AS installation
       FROM issue_pull_requests l JOIN projects p ON p.id = l.project_id
      WHERE l.pr_state IN ('', 'open') AND (l.pr_checked_at IS NULL OR l.pr_checked_at < $1)
      ORDER BY l.pr_checked_at NULLS FIRST, l.created_at LIMIT $2`,
    [new Date(now.getTime() - options.polling.everyMs), options.polling.perPass],
  )
  let ended = 0
  for (const row of rows) {
    const pull = pullOfUrl(row.url)
    if (!pull || row.repo === '' || pull.repo.toLowerCase() !== row.repo.toLowerCase()) {
      await options.db.query(`UPDATE issue_pull_requests SET pr_state = 'unfollowed', pr_checked_at = $2 WHERE id = $1`, [row.id, now])
      continue
    }
    const read = await pullRequests.read(row.repo, row.installation, pull.number).catch(() => undefined)
    if (!read) {
      await options.db.query('UPDATE issue_pull_requests SET pr_checked_at = $2 WHERE id = $1', [row.id, now])
      continue
    }
    const seen: PullRequestSeen = { state: read.state, mergedAt: read.mergedAt, closedAt: read.closedAt, mergeSha: read.mergeSha }
    const outcome = await options.em.fork().transactional((tx) => applyLinkedSeen(tx as EntityManager, row.id, seen, now))
    if (outcome === 'merged' || outcome === 'closed') ended++
  }
  return ended
}
