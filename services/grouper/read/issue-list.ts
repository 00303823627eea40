/**
 * The project's issue list as the dashboard, the project API and the tool server read it: the
 * grouper's issues narrowed by a filter (issue-filter.ts), ordered by one of four sorts with the
 * id breaking ties, a page at a time after a keyset cursor. One statement of fixed fragments;
 * what the caller sent only ever travels as a parameter.
 */
import type { Queryable } from '../../../shared/db/index.js'
import { userKey } from '../../../shared/domain/user-key.js'
import { DEFAULT_ISSUE_LIMIT, decodeIssueCursor, encodeIssueCursor, MAX_ISSUE_LIMIT, type IssueFilter, type IssueSort } from './issue-filter.js'

export interface IssueRow {
  id: string
  title: string
  culprit: string
  status: string
  kind: string
  /** Why the issue is noise (resize-observer-loop, cross-origin-script-error, browser-extension), '' when it is not. */
  noise: string
  event_count: string
  user_count: number
  session_count: number
  first_seen: Date
  last_seen: Date
  created_at: Date
  reason_code: string
  reason_message: string
  /** open, resolved or ignored (docs/issues.md). */
  triage: string
  /** '' unless resolved: now or next_release. */
  resolved_mode: string
  ignored_until: Date | null
  regressed_at: Date | null
  /** Issues merged into this one. */
  merged_count: number
  /** Who the issue is assigned to (a user id), and how they are named; null when nobody. */
  assignee_id: string | null
  assignee_label: string | null
}

export interface IssueList {
  issues: IssueRow[]
  /** Noise issues of the project in the triage states asked for, listed or not. */
  noiseCount: number
}

/** A page of the list and where the next one starts (null: this was the last). */
export interface IssueSearch extends IssueList {
  nextCursor: string | null
}

/** Each sort's column, its value as a cursor keeps it (text), and that value back as SQL of the parameter $n. */
const SORTS: Record<IssueSort, { column: string; value: string; bound: (param: string) => string }> = {
  // Times as whole microseconds: a Date keeps only milliseconds, and the next page must start strictly after the row.
  last_seen: { column: 'i.last_seen', value: `(extract(epoch FROM i.last_seen) * 1000000)::bigint::text`, bound: (p) => `(timestamptz 'epoch' + ${p}::bigint * interval '1 microsecond')` },
  first_seen: { column: 'i.first_seen', value: `(extract(epoch FROM i.first_seen) * 1000000)::bigint::text`, bound: (p) => `(timestamptz 'epoch' + ${p}::bigint * interval '1 microsecond')` },
  events: { column: 'i.event_count', value: 'i.event_count::text', bound: (p) => `${p}::bigint` },
  users: { column: 'i.user_count', value: 'i.user_count::text', bound: (p) => `${p}::int` },
}

/** How an assignee is named, from the users row u: their name, else e-mail, else code-host login. */
export const ASSIGNEE_LABEL = `coalesce(nullif(u.display_name, ''), u.email, u.codehost_login)`

/** text as a LIKE pattern that matches it literally anywhere (\ is LIKE's default escape). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/**
 * One page of projectId's issues that match filter, in its sort (largest or newest first, then by
 * id), after its cursor; merged issues never. The cursor is assumed checked (parseIssueFilter); one
 * that does not decode starts from the top. countNoise false skips the noise count (a scan of the
 * project's issues, which only the dashboard shows) and answers 0 for it.
 */
export async function searchIssues(db: Queryable, projectId: string, filter: IssueFilter, options: { countNoise?: boolean } = {}): Promise<IssueSearch> {
  const sortName = filter.sort ?? 'last_seen'
  const sort = SORTS[sortName]
  const limit = Math.min(Math.max(1, filter.limit ?? DEFAULT_ISSUE_LIMIT), MAX_ISSUE_LIMIT)
  const triage = filter.triage ?? ['open']
  const params: unknown[] = [projectId, triage]
  const param = (value: unknown): string => `$${params.push(value)}`
  const where = ['i.project_id = $1', 'i.triage = ANY($2::text[])', 'i.merged_into IS NULL']
  if (!filter.withNoise) where.push(`i.noise = ''`)
  if (filter.status?.length) where.push(`i.status = ANY(${param(filter.status)}::text[])`)
  if (filter.kind) where.push(`i.kind = ${param(filter.kind)}`)
  // The expression of the trigram index (migration 082), so the index serves it.
  if (filter.query) where.push(`(i.title || ' ' || i.culprit) ILIKE ${param(containsPattern(filter.query))}`)
  if (filter.release) where.push(`EXISTS (SELECT 1 FROM issue_releases r WHERE r.issue_id = i.id AND r.release = ${param(filter.release)})`)
  if (filter.environment) {
    where.push(
      `EXISTS (SELECT 1 FROM issue_environments ie WHERE ie.issue_id = i.id
                  AND ie.environment_id = (SELECT env.id FROM environments env WHERE env.project_id = $1 AND env.name = ${param(filter.environment)}))`,
    )
  }
  if (filter.user) {
    // The key the grouper stored for the SDK's first identity (id, else e-mail, else username).
    where.push(`EXISTS (SELECT 1 FROM issue_actors a WHERE a.issue_id = i.id AND a.actor_kind = 'u' AND a.actor = ${param(userKey(projectId, { id: filter.user }))})`)
  }
  if (filter.firstSeenFrom) where.push(`i.first_seen >= ${param(filter.firstSeenFrom)}`)
  if (filter.firstSeenTo) where.push(`i.first_seen <= ${param(filter.firstSeenTo)}`)
  if (filter.lastSeenFrom) where.push(`i.last_seen >= ${param(filter.lastSeenFrom)}`)
  if (filter.lastSeenTo) where.push(`i.last_seen <= ${param(filter.lastSeenTo)}`)
  if (filter.assignee === 'me') throw new Error('assignee=me is resolved to a user id before the list is read (resolveAssigneeMe)')
  if (filter.assignee === 'none') where.push('i.assignee_id IS NULL')
  else if (filter.assignee) where.push(`i.assignee_id = ${param(filter.assignee)}::uuid`)
  const after = filter.cursor === undefined ? undefined : decodeIssueCursor(filter.cursor)
  if (after && after.sort === sortName) {
    const bound = sort.bound(param(after.value))
    // The plain bound lets an index on the sort column start there; the row comparison breaks ties by id.
    where.push(`${sort.column} <= ${bound}`, `(${sort.column}, i.id) < (${bound}, ${param(after.id)}::uuid)`)
  }
  const sql = `
    SELECT page.*, (SELECT count(*)::int FROM issues m WHERE m.merged_into = page.id) AS merged_count,
           (SELECT ${ASSIGNEE_LABEL} FROM users u WHERE u.id = page.assignee_id) AS assignee_label
      FROM (SELECT i.id, i.title, i.culprit, i.status, i.kind, i.noise, i.event_count, i.user_count, i.session_count,
                   i.first_seen, i.last_seen, i.created_at, i.reason_code, i.reason_message,
                   i.triage, i.resolved_mode, i.ignored_until, i.regressed_at, i.assignee_id, ${sort.value} AS position
              FROM issues i
             WHERE ${where.join('\n               AND ')}
             ORDER BY ${sort.column} DESC, i.id DESC
             LIMIT ${param(limit + 1)}) page
     ORDER BY page.${sort.column.slice(2)} DESC, page.id DESC`
  const [listed, noiseCount] = await Promise.all([db.query<IssueRow & { position: string }>(sql, params), options.countNoise === false ? 0 : countNoise(db, projectId, triage)])
  const rows = listed.rows.slice(0, limit)
  const last = rows[rows.length - 1]
  const nextCursor = listed.rows.length > limit && last ? encodeIssueCursor({ sort: sortName, value: last.position, id: last.id }) : null
  return { issues: rows.map(({ position: _position, ...issue }) => issue), nextCursor, noiseCount }
}

/** Noise issues of the project in these triage states, merged ones left out. */
async function countNoise(db: Queryable, projectId: string, triage: string[]): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM issues WHERE project_id = $1 AND triage = ANY($2::text[]) AND noise <> '' AND merged_into IS NULL`,
    [projectId, triage],
  )
  return rows[0]?.n ?? 0
}
