/**
 * What the known-problem pages and the tool server read (docs/known-problems.md, migration 078): a
 * project's tickets with filters, one ticket, its matched recordings, its checks, the ticket of a
 * friction-kind issue. The matcher owns these tables and publishes their reads here. Callers
 * have checked that the project is the viewer's; every query is bounded by the project id, so
 * another project's ticket is never found.
 */
import type { Queryable } from '../../../shared/db/index.js'
import { isUuid } from '../../../shared/domain/uuid.js'
import type { TicketCounts } from './gate.js'

/** Known problems per page of the list. */
export const KNOWN_PROBLEMS_PER_PAGE = 50
/** Pages of the list that can be asked for: past that, narrow the filters. */
export const MAX_KNOWN_PROBLEM_PAGE = 200
/** Matched recordings, and checks, listed on a known problem's page (newest first). */
export const LISTED_EVIDENCE = 100

/** The friction kinds a ticket can have (friction_findings.kind). */
export const FRICTION_KINDS = ['rage_click', 'dead_click', 'error_after_click', 'form_abandon'] as const

/** One known problem as the list and its page show it; page, target, pages and narrative are recorded text (untrusted). */
export interface KnownProblemSummary extends TicketCounts {
  id: string
  issue_id: string
  state: string
  previous_state: string | null
  kind: string
  page: string
  target: string
  pages: string[]
  narrative: string
  environment: string | null
  matched: number
  created_at: Date
  /** The latest of its update (a match joined), and its latest check. */
  last_activity: Date
}

/** A known problem with what only its page shows: the same-fix question. */
export interface KnownProblemDetail extends KnownProblemSummary {
  same_fix: string | null
  same_fix_ticket_id: string | null
  /** The other problem's target, when it is of the same project. */
  same_fix_target: string | null
}

/** The list's filters as the query string gives them. */
export interface KnownProblemFilters {
  /** Archived ones too (?archived=1); hidden by default. */
  archived: boolean
  /** Only published ones (?published=1). */
  published: boolean
  /** One friction kind, or '' for all. */
  kind: string
}

/** A recording the problem was matched in, at its moment of friction. */
export interface MatchedRecording {
  recording_id: string
  at: Date
  page: string | null
  user_label: string | null
  /** False when the recording is gone (kept 30 days): no replay to link to. */
  recorded: boolean
}

/** One check of the problem against a further recording. */
export interface KnownProblemCheck {
  recording_id: string
  verdict: string
  utc_day: string
  checked_at: Date
  user_label: string | null
  recorded: boolean
}

const COLUMNS = `t.id, t.issue_id, t.state, t.previous_state, t.kind, t.page, t.target, t.pages, t.narrative, env.name AS environment,
                 t.matched, t.users, t.checks_confirmed, t.checks_refuted, t.checks_inconclusive, t.published_at, t.unpublished_at,
                 t.created_at, GREATEST(t.updated_at, (SELECT max(c.checked_at) FROM ticket_checks c WHERE c.ticket_id = t.id)) AS last_activity`

/**
 * A page of the project's known problems, the most recent activity first; one more row than a page
 * is read, so the caller knows whether a next page exists.
 */
export async function listKnownProblems(
  db: Queryable,
  projectId: string,
  filters: KnownProblemFilters,
  page: number,
): Promise<{ problems: KnownProblemSummary[]; more: boolean; archivedCount: number; autoInvestigate: boolean }> {
  const [listed, archived, project] = await Promise.all([
    db.query<KnownProblemSummary>(
      `SELECT ${COLUMNS}
         FROM tickets t LEFT JOIN environments env ON env.id = t.environment_id
        WHERE t.project_id = $1
          AND ($2 OR t.state <> 'archived')
          AND (NOT $3 OR t.published_at IS NOT NULL AND t.unpublished_at IS NULL)
          AND ($4 = '' OR t.kind = $4)
        ORDER BY last_activity DESC, t.id
        LIMIT $5 OFFSET $6`,
      [projectId, filters.archived, filters.published, filters.kind, KNOWN_PROBLEMS_PER_PAGE + 1, (page - 1) * KNOWN_PROBLEMS_PER_PAGE],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM tickets WHERE project_id = $1 AND state = 'archived'`, [projectId]),
    db.query<{ on: boolean }>('SELECT friction_auto_investigate AS on FROM projects WHERE id = $1', [projectId]),
  ])
  return {
    problems: listed.rows.slice(0, KNOWN_PROBLEMS_PER_PAGE),
    more: listed.rows.length > KNOWN_PROBLEMS_PER_PAGE,
    archivedCount: archived.rows[0]?.n ?? 0,
    autoInvestigate: project.rows[0]?.on === true,
  }
}

/** One known problem of the project. */
export async function getKnownProblem(db: Queryable, projectId: string, ticketId: string): Promise<KnownProblemDetail | undefined> {
  if (!isUuid(ticketId)) return undefined
  const { rows } = await db.query<KnownProblemDetail>(
    `SELECT ${COLUMNS}, t.same_fix, other.id AS same_fix_ticket_id, other.target AS same_fix_target
       FROM tickets t
       LEFT JOIN environments env ON env.id = t.environment_id
       LEFT JOIN tickets other ON other.id = t.same_fix_ticket_id AND other.project_id = t.project_id
      WHERE t.project_id = $1 AND t.id = $2`,
    [projectId, ticketId],
  )
  return rows[0]
}

/** The recordings the problem was matched in, each at its moment, newest first (LISTED_EVIDENCE at most). */
export async function listMatchedRecordings(db: Queryable, projectId: string, ticketId: string): Promise<MatchedRecording[]> {
  const { rows } = await db.query<MatchedRecording>(
    `SELECT m.recording_id, m.at, f.page, r.user_label, r.id IS NOT NULL AS recorded
       FROM ticket_matches m
       LEFT JOIN friction_findings f ON f.id = m.finding_id
       LEFT JOIN recordings r ON r.project_id = m.project_id AND r.id = m.recording_id
      WHERE m.ticket_id = $1 AND m.project_id = $2
      ORDER BY m.at DESC, m.recording_id
      LIMIT $3`,
    [ticketId, projectId, LISTED_EVIDENCE],
  )
  return rows
}

/** The problem's checks, newest first (LISTED_EVIDENCE at most). */
export async function listKnownProblemChecks(db: Queryable, projectId: string, ticketId: string): Promise<KnownProblemCheck[]> {
  const { rows } = await db.query<KnownProblemCheck>(
    `SELECT c.recording_id, c.verdict, to_char(c.utc_day, 'YYYY-MM-DD') AS utc_day, c.checked_at, r.user_label, r.id IS NOT NULL AS recorded
       FROM ticket_checks c
       LEFT JOIN recordings r ON r.project_id = c.project_id AND r.id = c.recording_id
      WHERE c.ticket_id = $1 AND c.project_id = $2
      ORDER BY c.checked_at DESC, c.recording_id
      LIMIT $3`,
    [ticketId, projectId, LISTED_EVIDENCE],
  )
  return rows
}

/** The known problem of a friction-kind issue of the project, if it has one. */
export async function getKnownProblemIdOfIssue(db: Queryable, projectId: string, issueId: string): Promise<string | undefined> {
  if (!isUuid(issueId)) return undefined
  const { rows } = await db.query<{ id: string }>('SELECT id FROM tickets WHERE issue_id = $1 AND project_id = $2', [issueId, projectId])
  return rows[0]?.id
}
