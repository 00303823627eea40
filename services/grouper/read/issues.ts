/**
 * An issue and its events as the issue page, the project API and the tool server read them (the
 * grouper's read face). Every aggregate is bounded, so an issue with a hundred thousand events
 * stays fast: facets count the latest FACET_SAMPLE events (browsers the latest BROWSER_SAMPLE), the
 * chart counts the last CHART_DAYS days, and all walk events_issue_received (issue_id, received_at
 * DESC). Callers have checked that the issue belongs to the viewer's project.
 */
import type { Queryable } from '../../../shared/db/index.js'
import { DAY } from '../../../shared/time.js'
import { isUuid } from '../../../shared/domain/uuid.js'
import { ASSIGNEE_LABEL, type IssueRow } from './issue-list.js'
import { readBreadcrumbs, readGrouping, type ShownBreadcrumb, type ShownGrouping } from './stored-event.js'
import { browserLabel } from './user-agent.js'

/** Events the release and environment counts are taken over, newest first (columns: cheap). */
export const FACET_SAMPLE = 10_000
/**
 * Events the browser counts are taken over. The user agent is inside the payload, and reading
 * payloads costs about 70 µs an event (a 6 KB body with 50 breadcrumbs), so this sample is smaller;
 * a user-agent column filled at grouping time would let it match FACET_SAMPLE.
 */
export const BROWSER_SAMPLE = 1_000
/** Days the chart shows, today (UTC) included. */
export const CHART_DAYS = 30
/** Events listed with their raw messages. */
export const RECENT_EVENTS = 20
/** Values listed per facet; the rest are summed as "other". */
const FACET_VALUES = 10
/** Distinct values read per facet before they are merged (user agents merge into fewer browsers). */
const FACET_ROWS = 500
/** Characters of a message in the recent events list (a message may be 64 KiB). */
const LISTED_MESSAGE = 500

export interface IssueDetail extends IssueRow {
  /** When the issue's row was made (the spec's Issue record); first_seen is its earliest event's, or for a known problem's issue its first finding's moment, which a backfill may find days later. */
  created_at: Date
  grouping_version: number
  detail_quality: number
  /** Why the latest investigation stopped (needs_human), '' otherwise; the investigator sets both. */
  reason_code: string
  reason_message: string
}

export interface LatestEvent {
  id: string
  occurred_at: Date
  received_at: Date
  release: string | null
  environment: string | null
  errorType: string
  message: string
  stack: string
  /** What was thrown when it was not an Error ("string", "object", ...), or ''. */
  thrown: string
  url: string
  userAgent: string
  grouping: ShownGrouping
  breadcrumbs: ShownBreadcrumb[]
}

export interface FacetCount {
  /** null: the events carry no value (no release set, no environment). */
  value: string | null
  count: number
  /** The values past the listed ones, summed. */
  other?: boolean
}

export interface Facets {
  /** Events the releases and environments were counted over: FACET_SAMPLE at most. */
  sampled: number
  /** Events the browsers were counted over: BROWSER_SAMPLE at most. */
  browsersSampled: number
  browsers: FacetCount[]
  releases: FacetCount[]
  environments: FacetCount[]
}

export interface DayCount {
  /** YYYY-MM-DD, UTC. */
  day: string
  count: number
}

export interface RecentEvent {
  id: string
  occurred_at: Date
  received_at: Date
  release: string | null
  environment: string | null
  browser: string
  errorType: string
  message: string
}

/** One issue of the project, with what its page shows beyond the list's columns. */
export async function getIssueDetail(db: Queryable, projectId: string, issueId: string): Promise<IssueDetail | undefined> {
  if (!isUuid(issueId)) return undefined
  const { rows } = await db.query<IssueDetail>(
    `SELECT id, title, culprit, status, kind, noise, event_count, user_count, session_count, first_seen, last_seen, created_at, grouping_version, detail_quality,
            reason_code, reason_message, assignee_id, (SELECT ${ASSIGNEE_LABEL} FROM users u WHERE u.id = issues.assignee_id) AS assignee_label
       FROM issues WHERE id = $1 AND project_id = $2`,
    [issueId, projectId],
  )
  return rows[0]
}

/** The issue's most recent event stored whole (a sampled one has no payload): its stored frames, the error as sent, its breadcrumbs and context. */
export async function getLatestEvent(db: Queryable, issueId: string): Promise<LatestEvent | undefined> {
  const { rows } = await db.query<{ id: string; occurred_at: Date; received_at: Date; release: string | null; environment: string | null; grouping: unknown; error: unknown; breadcrumbs: unknown; context: unknown }>(
    `SELECT e.id, e.occurred_at, e.received_at, e.release, env.name AS environment, e.grouping,
            e.payload->'error' AS error, e.payload->'breadcrumbs' AS breadcrumbs, e.payload->'context' AS context
       FROM events e
       LEFT JOIN environments env ON env.id = e.environment_id
      WHERE e.issue_id = $1 AND e.whole ORDER BY e.received_at DESC LIMIT 1`,
    [issueId],
  )
  const row = rows[0]
  if (!row) return undefined
  const error = record(row.error)
  const context = record(row.context)
  return {
    id: row.id,
    occurred_at: row.occurred_at,
    received_at: row.received_at,
    release: row.release,
    environment: row.environment,
    errorType: text(error.type),
    message: text(error.message),
    stack: text(error.stack),
    thrown: text(error.thrown),
    url: text(context.url),
    userAgent: text(context.user_agent),
    grouping: readGrouping(row.grouping),
    breadcrumbs: readBreadcrumbs(row.breadcrumbs),
  }
}

/**
 * Releases and environments among the issue's latest FACET_SAMPLE events, browsers among the latest
 * BROWSER_SAMPLE; most frequent first.
 */
export async function getFacets(db: Queryable, issueId: string): Promise<Facets> {
  // Each sample is read once (a CTE used more than once is materialised) and grouped.
  const { rows } = await db.query<{ facet: 'sampled' | 'browsers_sampled' | 'release' | 'environment' | 'user_agent'; value: string | null; n: number }>(
    `WITH recent AS (
       SELECT release, environment_id FROM events WHERE issue_id = $1 ORDER BY received_at DESC LIMIT $2
     ), agents AS (
       SELECT payload->'context'->>'user_agent' AS user_agent FROM events WHERE issue_id = $1 AND whole ORDER BY received_at DESC LIMIT $3
     )
     SELECT 'sampled' AS facet, NULL AS value, count(*)::int AS n FROM recent
     UNION ALL
     SELECT 'browsers_sampled', NULL, count(*)::int FROM agents
     UNION ALL
     (SELECT 'release', release, count(*)::int AS n FROM recent GROUP BY release ORDER BY n DESC LIMIT $4)
     UNION ALL
     (SELECT 'environment', env.name, count(*)::int AS n FROM recent LEFT JOIN environments env ON env.id = recent.environment_id GROUP BY env.name ORDER BY n DESC LIMIT $4)
     UNION ALL
     (SELECT 'user_agent', user_agent, count(*)::int AS n FROM agents GROUP BY user_agent ORDER BY n DESC LIMIT $4)`,
    [issueId, FACET_SAMPLE, BROWSER_SAMPLE, FACET_ROWS],
  )
  const of = (facet: string): FacetCount[] => rows.filter((row) => row.facet === facet).map((row) => ({ value: row.value, count: row.n }))
  const browsers = new Map<string, number>()
  for (const { value, count } of of('user_agent')) {
    const label = browserLabel(value)
    browsers.set(label, (browsers.get(label) ?? 0) + count)
  }
  const sampled = (facet: string): number => rows.find((row) => row.facet === facet)?.n ?? 0
  return {
    sampled: sampled('sampled'),
    browsersSampled: sampled('browsers_sampled'),
    browsers: top([...browsers].map(([value, count]) => ({ value, count }))),
    releases: top(of('release')),
    environments: top(of('environment')),
  }
}

/** The most frequent values, and the rest summed into one "other" row. */
function top(counts: FacetCount[]): FacetCount[] {
  const sorted = counts.slice().sort((a, b) => b.count - a.count || String(a.value).localeCompare(String(b.value)))
  if (sorted.length <= FACET_VALUES) return sorted
  const rest = sorted.slice(FACET_VALUES - 1).reduce((sum, item) => sum + item.count, 0)
  return [...sorted.slice(0, FACET_VALUES - 1), { value: null, count: rest, other: true }]
}

/** Events per UTC day over the last CHART_DAYS days, oldest first, days without events included. */
export async function getDailyCounts(db: Queryable, issueId: string, now = new Date()): Promise<DayCount[]> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  const first = today - (CHART_DAYS - 1) * DAY
  const { rows } = await db.query<{ day: string; n: number }>(
    `SELECT to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS n
       FROM events WHERE issue_id = $1 AND received_at >= $2 GROUP BY 1`,
    [issueId, new Date(first)],
  )
  const counts = new Map(rows.map((row) => [row.day, row.n]))
  return Array.from({ length: CHART_DAYS }, (_, i) => {
    const day = new Date(first + i * DAY).toISOString().slice(0, 10)
    return { day, count: counts.get(day) ?? 0 }
  })
}

/** The issue's latest events stored whole, with their raw messages (the issue's title is normalised). */
export async function listRecentEvents(db: Queryable, issueId: string): Promise<RecentEvent[]> {
  const { rows } = await db.query<{ id: string; occurred_at: Date; received_at: Date; release: string | null; environment: string | null; user_agent: string | null; error_type: string | null; message: string | null }>(
    `SELECT e.id, e.occurred_at, e.received_at, e.release, env.name AS environment,
            e.payload->'context'->>'user_agent' AS user_agent, left(e.payload->'error'->>'type', 256) AS error_type,
            left(e.payload->'error'->>'message', $3) AS message
       FROM events e
       LEFT JOIN environments env ON env.id = e.environment_id
      WHERE e.issue_id = $1 AND e.whole ORDER BY e.received_at DESC LIMIT $2`,
    [issueId, RECENT_EVENTS, LISTED_MESSAGE],
  )
  return rows.map((row) => ({
    id: row.id,
    occurred_at: row.occurred_at,
    received_at: row.received_at,
    release: row.release,
    environment: row.environment,
    browser: browserLabel(row.user_agent),
    errorType: row.error_type ?? '',
    message: row.message ?? '',
  }))
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}
