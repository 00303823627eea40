/**
 * Pull requests an agent opened itself and recorded against an issue (migration 080,
 * issue_pull_requests). The tool server writes them; the issue page and get_issue read them. They
 * are the agent's word, never watched or updated by the service: the page shows them apart from
 * the service's own fix.
 */
import type { Queryable } from '../../../shared/db/index.js'

/** How many an issue keeps: an agent that links in a loop cannot grow a page without end. */
export const LINKED_PER_ISSUE = 20

export interface LinkedPullRequest {
  url: string
  title: string
  key_id: string
  created_at: Date
  /** What the pull request follower last saw: '' not read yet, open, merged, closed, unfollowed (another repository's). */
  pr_state: string
}

/**
 * Records (or, for a url already linked, retitles) a pull request against an issue of the project;
 * undefined when the issue already has LINKED_PER_ISSUE others.
 */
export async function linkPullRequest(db: Queryable, link: { projectId: string; issueId: string; url: string; title: string; keyId: string }): Promise<LinkedPullRequest | undefined> {
  const { rows } = await db.query<LinkedPullRequest>(
    `INSERT INTO issue_pull_requests (project_id, issue_id, url, title, key_id)
     SELECT $1, $2, $3, $4, $5
      WHERE (SELECT count(*) FROM issue_pull_requests WHERE issue_id = $2 AND url <> $3) < $6
     ON CONFLICT (issue_id, url) DO UPDATE SET title = EXCLUDED.title, key_id = EXCLUDED.key_id, updated_at = now()
     RETURNING url, title, key_id, created_at, pr_state`,
    [link.projectId, link.issueId, link.url, link.title, link.keyId, LINKED_PER_ISSUE],
  )
  return rows[0]
}

/** The pull requests linked to an issue of the project, oldest first. */
export async function listLinkedPullRequests(db: Queryable, projectId: string, issueId: string): Promise<LinkedPullRequest[]> {
  const { rows } = await db.query<LinkedPullRequest>(
    'SELECT url, title, key_id, created_at, pr_state FROM issue_pull_requests WHERE project_id = $1 AND issue_id = $2 ORDER BY created_at, url LIMIT $3',
    [projectId, issueId, LINKED_PER_ISSUE],
  )
  return rows
}
