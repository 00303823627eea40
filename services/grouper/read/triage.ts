/**
 * An issue's triage and history as the issue page, the project API and the tool server read them
 * (docs/issues.md).
 */
import type { Queryable } from '../../../shared/db/index.js'
import type { HistoryEntry, Triage } from '../triage/types.js'

/** An issue's triage state, its regression mark and its merges. */
export interface IssueTriage {
  triage: Triage
  resolvedAt: Date | null
  resolvedMode: '' | 'now' | 'next_release'
  /** The newest release when it was resolved in the next release (null: none was known). */
  resolvedRelease: string | null
  ignoredUntil: Date | null
  ignoredUntilEvents: number | null
  ignoredUntilUsers: number | null
  regressedAt: Date | null
  regressedRelease: string | null
  mergedInto: { id: string; title: string } | null
  mergedFrom: Array<{ id: string; title: string }>
}

/** The triage of projectId's issue, or undefined for an issue of another project. */
export async function issueTriage(db: Queryable, projectId: string, issueId: string): Promise<IssueTriage | undefined> {
  const { rows } = await db.query<{
    triage: Triage
    resolved_at: Date | null
    resolved_mode: IssueTriage['resolvedMode']
    resolved_release: string | null
    ignored_until: Date | null
    ignored_until_events: string | null
    ignored_until_users: number | null
    regressed_at: Date | null
    regressed_release: string | null
    into_id: string | null
    into_title: string | null
    merged_from: Array<{ id: string; title: string }>
  }>(
    `SELECT i.triage, i.resolved_at, i.resolved_mode, i.resolved_release, i.ignored_until, i.ignored_until_events, i.ignored_until_users,
            i.regressed_at, i.regressed_release, t.id AS into_id, t.title AS into_title,
            COALESCE((SELECT json_agg(json_build_object('id', m.id, 'title', m.title) ORDER BY m.title) FROM issues m WHERE m.merged_into = i.id), '[]') AS merged_from
       FROM issues i LEFT JOIN issues t ON t.id = i.merged_into
      WHERE i.id = $1 AND i.project_id = $2`,
    [issueId, projectId],
  )
  const row = rows[0]
  if (!row) return undefined
  return {
    triage: row.triage,
    resolvedAt: row.resolved_at,
    resolvedMode: row.resolved_mode,
    resolvedRelease: row.resolved_release,
    ignoredUntil: row.ignored_until,
    ignoredUntilEvents: row.ignored_until_events === null ? null : Number(row.ignored_until_events),
    ignoredUntilUsers: row.ignored_until_users,
    regressedAt: row.regressed_at,
    regressedRelease: row.regressed_release,
    mergedInto: row.into_id ? { id: row.into_id, title: row.into_title ?? '' } : null,
    mergedFrom: row.merged_from,
  }
}

/** The issue's history, newest first. */
export async function issueHistory(db: Queryable, issueId: string, limit = 100): Promise<HistoryEntry[]> {
  const { rows } = await db.query<{
    at: Date
    actor_kind: HistoryEntry['actorKind']
    actor_id: string
    actor_label: string
    action: HistoryEntry['action']
    from_state: string
    to_state: string
    reason: string
    detail: Record<string, unknown>
  }>(`SELECT at, actor_kind, actor_id, actor_label, action, from_state, to_state, reason, detail FROM issue_history WHERE issue_id = $1 ORDER BY at DESC, id DESC LIMIT $2`, [issueId, limit])
  return rows.map((r) => ({ at: r.at, actorKind: r.actor_kind, actorId: r.actor_id, actorLabel: r.actor_label, action: r.action, fromState: r.from_state, toState: r.to_state, reason: r.reason, detail: r.detail }))
}
