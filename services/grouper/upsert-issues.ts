/**
 * Finds or opens the issue of each distinct error of a batch. An error joins the issue of its
 * fingerprint; in a project moved to a newer fingerprint version (`svc grouping-upgrade`), an
 * error whose new fingerprint has no issue yet joins the open issue its previous version's
 * fingerprint has, and the new fingerprint is recorded as an alias of that issue
 * (issue_fingerprint_aliases), so a bug that goes on happening keeps its issue across the upgrade.
 * Every statement takes the whole batch as arrays.
 */
import type pg from 'pg'
import type { GroupingResult } from './grouping/index.js'
import type { KnownIds } from '../../shared/domain/known-ids.js'

/**
 * Statuses an issue holds while the bug is still being looked at: what the grouper sets (new) and
 * what an investigation or a fix moves it through. Any other status (archived, or a verdict such as
 * resolved) ends the issue's life: after an upgrade the bug opens a new issue instead of reviving
 * that one. A status added later counts as closed until it is listed here, which can cost an extra
 * issue but never hides a bug in a closed one.
 */
export const OPEN_ISSUE_STATUSES: readonly string[] = ['new', 'queued', 'analyzing', 'investigated', 'insight', 'needs_human', 'fixing']

/** What upsertIssues needs of a prepared event. */
export interface IssueCandidate {
  /** `${projectId}|${fingerprint}`: the key the returned map uses. */
  issueKey: string
  envelope: { projectId: string; receivedAt: number }
  grouping: Pick<GroupingResult, 'fingerprint' | 'version' | 'title' | 'culprit' | 'drop' | 'quality'> & {
    /** The fingerprint the project's previous version gives the error (upgraded projects only). */
    previousFingerprint?: string
  }
}

/**
 * The issue id of each distinct issue key of the batch, opening the issues that do not exist (known
 * ones are not looked up); created, when given, gains the ids of the issues this call opened.
 */
export async function upsertIssues(client: pg.PoolClient, batch: readonly IssueCandidate[], known?: KnownIds, created?: Set<string>): Promise<Map<string, string>> {
  const byKey = new Map<string, IssueCandidate>()
  const firstSeen = new Map<string, number>()
  for (const item of batch) {
    if (!byKey.has(item.issueKey)) byKey.set(item.issueKey, item)
    firstSeen.set(item.issueKey, Math.min(firstSeen.get(item.issueKey) ?? Infinity, item.envelope.receivedAt))
  }
  // One lock order for every grouper, so concurrent batches creating the same issues cannot deadlock.
  const ids = new Map<string, string>()
  for (const key of byKey.keys()) {
    const id = known?.get(key)
    if (id !== undefined) ids.set(key, id)
  }
  const keys = [...byKey.keys()].filter((key) => !ids.has(key)).sort()
  const upgraded = keys.map((k) => byKey.get(k)!).filter((item) => item.grouping.previousFingerprint !== undefined)
  if (upgraded.length > 0) for (const [key, id] of await joinPreviousIssues(client, upgraded)) ids.set(key, id)
  const items = keys.filter((k) => !ids.has(k)).map((k) => byKey.get(k)!)
  if (items.length === 0) return ids
  const projects = items.map((i) => i.envelope.projectId)
  const fingerprints = items.map((i) => i.grouping.fingerprint)
  const seen = items.map((i) => new Date(firstSeen.get(i.issueKey)!))
  // DO NOTHING leaves existing issues unlocked: the counters are bumped at the very end of the
  // transaction, so concurrent batches that share issues wait on each other only for that step.
  const { rows: opened } = await client.query<{ id: string }>(
    `INSERT INTO issues (project_id, fingerprint, grouping_version, title, culprit, first_seen, last_seen, noise, detail_quality)
     SELECT p, f, v, t, c, s, s, n, q FROM unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::text[], $6::timestamptz[], $7::text[], $8::int[]) AS x(p, f, v, t, c, s, n, q)
     ON CONFLICT (project_id, kind, fingerprint) DO NOTHING
     RETURNING id`,
    [projects, fingerprints, items.map((i) => i.grouping.version), items.map((i) => i.grouping.title), items.map((i) => i.grouping.culprit), seen, items.map((i) => i.grouping.drop ?? ''), items.map((i) => i.grouping.quality ?? 0)],
  )
  const { rows } = await client.query<{ id: string; project_id: string; fingerprint: string }>(
    `SELECT i.id, i.project_id, i.fingerprint FROM issues i
     JOIN unnest($1::uuid[], $2::text[]) AS w(p, f) ON i.project_id = w.p AND i.kind = 'error' AND i.fingerprint = w.f`,
    [projects, fingerprints],
  )
  for (const row of rows) ids.set(`${row.project_id}|${row.fingerprint}`, row.id)
  for (const row of opened) created?.add(row.id)
  return ids
}

/**
 * For errors of upgraded projects whose fingerprint has no issue: the issue an alias already names,
 * or else the open issue of the previous version's fingerprint (itself an issue's or an alias's),
 * which the new fingerprint becomes an alias of. Errors with neither are left to open a new issue.
 */
async function joinPreviousIssues(client: pg.PoolClient, items: readonly IssueCandidate[]): Promise<Map<string, string>> {
  const projects = items.map((i) => i.envelope.projectId)
  const fingerprints = items.map((i) => i.grouping.fingerprint)
  const { rows } = await client.query<{ k: string; aliased: string | null; previous: string | null }>(
    `SELECT w.k, a.issue_id AS aliased, COALESCE(o.id, po.id) AS previous
       FROM unnest($1::text[], $2::uuid[], $3::text[], $4::text[]) AS w(k, p, f, prev)
       LEFT JOIN issue_fingerprint_aliases a ON a.project_id = w.p AND a.fingerprint = w.f
       LEFT JOIN issues o ON o.project_id = w.p AND o.kind = 'error' AND o.fingerprint = w.prev AND o.status = ANY($5::text[])
       LEFT JOIN issue_fingerprint_aliases pa ON pa.project_id = w.p AND pa.fingerprint = w.prev
       LEFT JOIN issues po ON po.id = pa.issue_id AND po.status = ANY($5::text[])
      WHERE NOT EXISTS (SELECT 1 FROM issues i WHERE i.project_id = w.p AND i.kind = 'error' AND i.fingerprint = w.f)`,
    [items.map((i) => i.issueKey), projects, fingerprints, items.map((i) => i.grouping.previousFingerprint!), OPEN_ISSUE_STATUSES],
  )
  const ids = new Map<string, string>()
  const fresh = new Map<string, string>()
  for (const row of rows) {
    if (row.aliased) ids.set(row.k, row.aliased)
    else if (row.previous) fresh.set(row.k, row.previous)
  }
  if (fresh.size === 0) return ids
  const aliases = items.filter((i) => fresh.has(i.issueKey))
  // DO NOTHING, then read back: a concurrent batch may have recorded the same alias first.
  await client.query(
    `INSERT INTO issue_fingerprint_aliases (project_id, fingerprint, grouping_version, issue_id)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::uuid[])
     ON CONFLICT (project_id, fingerprint) DO NOTHING`,
    [aliases.map((i) => i.envelope.projectId), aliases.map((i) => i.grouping.fingerprint), aliases.map((i) => i.grouping.version), aliases.map((i) => fresh.get(i.issueKey)!)],
  )
  const { rows: recorded } = await client.query<{ project_id: string; fingerprint: string; issue_id: string }>(
    `SELECT a.project_id, a.fingerprint, a.issue_id FROM issue_fingerprint_aliases a
       JOIN unnest($1::uuid[], $2::text[]) AS w(p, f) ON a.project_id = w.p AND a.fingerprint = w.f`,
    [aliases.map((i) => i.envelope.projectId), aliases.map((i) => i.grouping.fingerprint)],
  )
  for (const row of recorded) ids.set(`${row.project_id}|${row.fingerprint}`, row.issue_id)
  return ids
}
