/**
 * A project's setup facts (spec "State facts"), read in one place. The session's state endpoint
 * and poll answer (facts.ts), the dashboard's overview and Digests tab, and the tool server's
 * get_setup_state all call readProjectFacts: a mark one writer sets (the digester's chat_broken_at)
 * reaches every reader, where a reader with SQL of its own once kept answering chat_connected for a
 * chat that refused the webhook. Each fact is derived here, once, from the times its writers set.
 */
import type { Queryable } from '../../../shared/db/index.js'

/** The facts, for the project as a whole or since a setup session began (has_events, sdk_seen). */
export interface SetupFacts {
  has_events: boolean
  /** A browser SDK checked in (the ingress ping). */
  sdk_seen: boolean
  latest_error_group_url: string
  issues_url: string
  codehost_connected: boolean
  codehost_installed: boolean
  codehost_repo: string
  codehost_repo_access: string
  codehost_connect_url: string
  chat_connected: boolean
  /** Why the chat refused the digest's webhook (redacted; empty when it has not): chat_connected is then false until chat is connected again. */
  chat_error: string
  sourcemaps_uploaded: boolean
}

/** When each fact's writer set it (null: never, or cleared), for pages that say "since". */
export interface FactTimes {
  codehost_connected_at: Date | null
  chat_connected_at: Date | null
  /** Set when the chat refused the digest's webhook; chat_connected is false from then on. */
  chat_broken_at: Date | null
  sourcemaps_uploaded_at: Date | null
  sdk_seen_at: Date | null
}

/** One read of a project's setup. */
export interface ProjectSetup {
  name: string
  facts: SetupFacts
  times: FactTimes
}

interface ProjectRow extends FactTimes {
  name: string
  codehost_repo: string
  codehost_installation_id: string
  codehost_repo_access: string
  chat_error: string
  has_events: boolean
  latest_issue: string | null
}

/** No session: every event of the project counts. */
const EVER = new Date(0)

/** Dashboard links of a project. */
export function projectLinks(baseUrl: string, projectId: string): { dashboard_url: string; issues_url: string; codehost_connect_url: string } {
  return {
    dashboard_url: `${baseUrl}/projects/${projectId}`,
    issues_url: `${baseUrl}/projects/${projectId}/issues`,
    codehost_connect_url: `${baseUrl}/projects/${projectId}/settings/codehost`,
  }
}

/**
 * The setup of projectId (undefined when there is no such project). since is when a setup session
 * began: an existing project's old events and SDK pings prove nothing about the app being set up
 * now; null counts the project's whole life (the dashboard, the tool server).
 */
export async function readProjectFacts(db: Queryable, baseUrl: string, projectId: string, since: Date | null): Promise<ProjectSetup | undefined> {
  const { rows } = await db.query<ProjectRow>(
    `SELECT p.name, p.codehost_repo, p.codehost_installation_id, p.codehost_repo_access, p.codehost_connected_at,
            p.chat_connected_at, p.chat_broken_at, p.chat_error, p.sourcemaps_uploaded_at, p.sdk_seen_at,
            EXISTS (SELECT 1 FROM events e WHERE e.project_id = p.id AND e.received_at >= $2) AS has_events,
            (SELECT i.id FROM issues i WHERE i.project_id = p.id ORDER BY i.last_seen DESC LIMIT 1) AS latest_issue
       FROM projects p WHERE p.id = $1`,
    [projectId, since ?? EVER],
  )
  const row = rows[0]
  if (!row) return undefined
  const links = projectLinks(baseUrl, projectId)
  const broken = row.chat_broken_at !== null
  const facts: SetupFacts = {
    has_events: row.has_events,
    sdk_seen: row.sdk_seen_at !== null && row.sdk_seen_at.getTime() >= (since ?? EVER).getTime(),
    latest_error_group_url: row.latest_issue ? `${links.issues_url}/${row.latest_issue}` : '',
    issues_url: links.issues_url,
    codehost_connected: row.codehost_connected_at !== null && row.codehost_repo !== '',
    codehost_installed: row.codehost_installation_id !== '',
    codehost_repo: row.codehost_repo,
    codehost_repo_access: row.codehost_repo_access,
    codehost_connect_url: links.codehost_connect_url,
    chat_connected: row.chat_connected_at !== null && !broken,
    chat_error: broken ? row.chat_error : '',
    sourcemaps_uploaded: row.sourcemaps_uploaded_at !== null,
  }
  const { codehost_connected_at, chat_connected_at, chat_broken_at, sourcemaps_uploaded_at, sdk_seen_at } = row
  return { name: row.name, facts, times: { codehost_connected_at, chat_connected_at, chat_broken_at, sourcemaps_uploaded_at, sdk_seen_at } }
}
