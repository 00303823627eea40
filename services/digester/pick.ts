/**
 * What a digest run picks (spec "What the service does" 5): in its window, error issues whose
 * cause investigation or fix completed, and known problems (friction-kind issues with a ticket)
 * that the publish gate published on confirmed evidence and whose cause investigation completed,
 * when that investigation or their fix completed in the window. Each comes once, with the facts
 * the digest freezes: its outcome, its users, its pull request and its dashboard links. Reads the
 * investigator's and the matcher's tables; writes nothing.
 */
import type { Queryable } from '../../shared/db/index.js'
import { cleanText } from '../../shared/domain/untrusted-text.js'
import type { ItemLink, ItemOutcome } from './store/entities.js'

/** Entries one digest holds at most: a chat message stays readable; the rest wait for the next run. */
export const MAX_ITEMS = 30
/** Characters of an issue's title kept in a digest (event text: untrusted, one line). */
const TITLE_MAX = 120

/** One picked entry with its facts, before it is frozen. */
export interface PickedItem {
  subject: 'issue' | 'known_problem'
  issueId: string
  ticketId: string | null
  title: string
  outcome: ItemOutcome
  users: number
  prUrl: string
  links: ItemLink[]
  completedAt: Date
}

interface CandidateRow {
  issue_id: string
  kind: string
  title: string
  issue_users: number
  ticket_id: string | null
  ticket_users: number | null
  inv_state: string | null
  inv_at: Date | null
  fix_state: string | null
  /** How its pull request was opened (draft, limited_draft, ready): what a merged or closed one was. */
  fix_delivery: string | null
  fix_at: Date | null
  pr_url: string | null
  /** A merged fix's verdict reached in the window (held, came_back), else null. */
  held_state: string | null
  completed_at: Date
}

/**
 * The entries of projectId completed in [start, end), oldest first. More than MAX_ITEMS: the run
 * takes those completed before the first one left out and ends its window there (windowEnd), so
 * the rest are the next run's, each included or deferred exactly once.
 */
export async function pickItems(db: Queryable, projectId: string, start: Date, end: Date, baseUrl: string): Promise<{ items: PickedItem[]; windowEnd: Date }> {
  const { rows } = await db.query<CandidateRow>(
    `WITH inv AS (
       SELECT DISTINCT ON (v.issue_id) v.issue_id, v.state, v.finished_at
         FROM investigations v
        WHERE v.project_id = $1 AND v.state IN ('investigated', 'insight') AND v.finished_at >= $2 AND v.finished_at < $3
        ORDER BY v.issue_id, v.finished_at DESC
     ), fx AS (
       SELECT DISTINCT ON (f.issue_id) f.issue_id, f.state, f.delivery, f.finished_at, f.pr_url
         FROM fixes f
        WHERE f.project_id = $1 AND f.state IN ('pr_draft', 'pr_created', 'merged', 'closed') AND f.finished_at >= $2 AND f.finished_at < $3
        ORDER BY f.issue_id, f.finished_at DESC
     ), held AS (
       SELECT DISTINCT ON (f.issue_id) f.issue_id, f.held_state, f.held_checked_at, f.pr_url
         FROM fixes f
        WHERE f.project_id = $1 AND f.held_state IN ('held', 'came_back') AND f.held_checked_at >= $2 AND f.held_checked_at < $3
        ORDER BY f.issue_id, f.held_checked_at DESC
     )
     SELECT i.id AS issue_id, i.kind, i.title, i.user_count AS issue_users, k.id AS ticket_id, k.users AS ticket_users,
            inv.state AS inv_state, inv.finished_at AS inv_at, fx.state AS fix_state, fx.delivery AS fix_delivery, fx.finished_at AS fix_at, COALESCE(fx.pr_url, held.pr_url) AS pr_url, held.held_state,
            greatest(inv.finished_at, fx.finished_at, held.held_checked_at) AS completed_at
       FROM (SELECT issue_id FROM inv UNION SELECT issue_id FROM fx UNION SELECT issue_id FROM held) AS done
       JOIN issues i ON i.id = done.issue_id
       LEFT JOIN inv ON inv.issue_id = i.id
       LEFT JOIN fx ON fx.issue_id = i.id
       LEFT JOIN held ON held.issue_id = i.id
       LEFT JOIN tickets k ON k.issue_id = i.id
      WHERE i.project_id = $1 AND i.triage <> 'ignored' AND i.merged_into IS NULL
        AND (i.kind <> 'friction' OR (
             k.id IS NOT NULL AND k.state <> 'archived' AND k.published_at IS NOT NULL AND k.unpublished_at IS NULL
             AND EXISTS (SELECT 1 FROM investigations c WHERE c.issue_id = i.id AND c.state IN ('investigated', 'insight'))))
      ORDER BY completed_at, i.id
      LIMIT $4`,
    [projectId, start, end, MAX_ITEMS + 1],
  )
  let windowEnd = end
  let taken = rows
  if (rows.length > MAX_ITEMS) {
    windowEnd = rows[MAX_ITEMS]!.completed_at
    taken = rows.filter((row) => row.completed_at.getTime() < windowEnd.getTime())
  }
  return { items: taken.map((row) => itemOf(row, projectId, baseUrl)), windowEnd }
}

function itemOf(row: CandidateRow, projectId: string, baseUrl: string): PickedItem {
  const knownProblem = row.kind === 'friction' && row.ticket_id !== null
  // A pull request merged or closed since it opened is told as it was opened.
  const ended = row.fix_state === 'merged' || row.fix_state === 'closed'
  // A merged fix's verdict in production is the newest news of all.
  const verdict: ItemOutcome | undefined = row.held_state === 'held' ? 'fix_held' : row.held_state === 'came_back' ? 'fix_came_back' : undefined
  const outcome: ItemOutcome = verdict ?? (row.fix_state === 'pr_created' || (ended && row.fix_delivery === 'ready') ? 'fix_ready' : row.fix_state === 'pr_draft' || ended ? 'fix_draft' : row.inv_state === 'insight' ? 'outside_code' : 'cause_found')
  const project = `${baseUrl}/projects/${projectId}`
  const links: ItemLink[] = [knownProblem ? { label: 'Known problem', url: `${project}/known-problems/${row.ticket_id}` } : { label: 'Issue', url: `${project}/issues/${row.issue_id}` }]
  const prUrl = (row.fix_state || row.held_state) && row.pr_url && /^https?:\/\//.test(row.pr_url) ? row.pr_url : ''
  if (prUrl) links.push({ label: 'Pull request', url: prUrl })
  return {
    subject: knownProblem ? 'known_problem' : 'issue',
    issueId: row.issue_id,
    ticketId: knownProblem ? row.ticket_id : null,
    title: cleanText(row.title, TITLE_MAX) || 'Untitled issue',
    outcome,
    users: Number(knownProblem ? row.ticket_users ?? 0 : row.issue_users),
    prUrl,
    links,
    completedAt: row.completed_at,
  }
}
