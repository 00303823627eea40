/**
 * The team's triage of issues (docs/issues.md): resolve, ignore, reopen; what a person on the
 * dashboard, an agent through the project API or the tool server, and the service (a merged fix
 * pull request) ask of the grouper, which owns issues and their history. Each runs in the caller's
 * transaction (tx), locks the issues it moves, and writes one history line per issue it moved.
 */
import { runSql, type SqlTx } from '../../../shared/db/sql-tx.js'
import { compareReleases, type ReleaseSeen } from '../../../shared/domain/releases.js'
import type { HistoryEntry, Triage, TriageActor, TriageChange, TriageMoved } from '../triage/types.js'

/** A change the grouper refuses: code is stable (merge_invalid, unmerge_invalid, …), message says what to do. */
export class TriageRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** Moves issueIds of projectId as change asks; issues of another project, merged ones, or already so are left out. */
export async function triageIssues(tx: SqlTx, projectId: string, issueIds: readonly string[], change: TriageChange, by: TriageActor, reason = ''): Promise<TriageMoved[]> {
  if (issueIds.length === 0) return []
  const locked = await runSql<{ id: string; triage: Triage }>(
    tx,
    `SELECT id, triage FROM issues WHERE project_id = ? AND merged_into IS NULL AND id IN (SELECT jsonb_array_elements_text(?::jsonb)::uuid) ORDER BY id FOR NO KEY UPDATE`,
    [projectId, JSON.stringify(issueIds)],
  )
  const to: Triage = change.action === 'resolve' ? 'resolved' : change.action === 'ignore' ? 'ignored' : 'open'
  // Ignoring again takes the new conditions; resolving or reopening what already is so does nothing.
  const moving = locked.filter((row) => row.triage !== to || change.action === 'ignore')
  if (moving.length === 0) return []
  const ids = JSON.stringify(moving.map((row) => row.id))
  const detail: Record<string, unknown> = {}
  if (change.action === 'resolve') {
    const release = change.mode === 'next_release' ? await newestRelease(tx, projectId) : null
    detail.mode = change.mode
    if (release !== null) detail.release = release
    await runSql(
      tx,
      `UPDATE issues SET triage = 'resolved', resolved_at = clock_timestamp(), resolved_mode = ?, resolved_release = ?, regressed_at = NULL, regressed_release = NULL,
              ignored_until = NULL, ignored_until_events = NULL, ignored_until_users = NULL
        WHERE id IN (SELECT jsonb_array_elements_text(?::jsonb)::uuid)`,
      [change.mode, release, ids],
    )
  } else if (change.action === 'ignore') {
    Object.assign(detail, ignoreDetail(change))
    await runSql(
      tx,
      `UPDATE issues SET triage = 'ignored', ignored_until = ?, ignored_until_events = event_count + ?::bigint, ignored_until_users = user_count + ?::int,
              resolved_at = NULL, resolved_mode = '', resolved_release = NULL
        WHERE id IN (SELECT jsonb_array_elements_text(?::jsonb)::uuid)`,
      [change.until ?? null, change.moreEvents ?? null, change.moreUsers ?? null, ids],
    )
  } else {
    await runSql(tx, `UPDATE issues SET triage = 'open', ${CLEARED} WHERE id IN (SELECT jsonb_array_elements_text(?::jsonb)::uuid)`, [ids])
  }
  const moved = moving.map((row) => ({ id: row.id, from: row.triage, to }))
  await writeHistory(tx, projectId, moved.map((m) => ({ issueId: m.id, action: change.action, fromState: m.from, toState: m.to, detail })), by, reason)
  return moved
}

/** The columns a reopened issue clears. */
export const CLEARED = `resolved_at = NULL, resolved_mode = '', resolved_release = NULL, ignored_until = NULL, ignored_until_events = NULL, ignored_until_users = NULL`

function ignoreDetail(change: Extract<TriageChange, { action: 'ignore' }>): Record<string, unknown> {
  const detail: Record<string, unknown> = {}
  if (change.until) detail.until = change.until.toISOString()
  if (change.moreEvents !== undefined) detail.more_events = change.moreEvents
  if (change.moreUsers !== undefined) detail.more_users = change.moreUsers
  return detail
}

/** The project's newest release (docs/issues.md, "Releases"), among the 500 it saw last; null when it has none. */
export async function newestRelease(tx: SqlTx, projectId: string): Promise<string | null> {
  const rows = await runSql<{ name: string; first_seen: Date | string }>(tx, 'SELECT name, first_seen FROM releases WHERE project_id = ? ORDER BY first_seen DESC LIMIT 500', [projectId])
  let newest: ReleaseSeen | null = null
  for (const row of rows) {
    const release = { name: row.name, firstSeen: new Date(row.first_seen) }
    if (!newest || compareReleases(release, newest) > 0) newest = release
  }
  return newest?.name ?? null
}

/** One history line to write. */
export interface HistoryLine {
  issueId: string
  action: HistoryEntry['action']
  fromState?: string
  toState?: string
  detail?: Record<string, unknown>
}

/** Writes history lines of projectId's issues in tx, all by one actor for one reason. */
export async function writeHistory(tx: SqlTx, projectId: string, lines: readonly HistoryLine[], by: TriageActor, reason = ''): Promise<void> {
  if (lines.length === 0) return
  const rows = lines.map((line) => ({ i: line.issueId, a: line.action, f: line.fromState ?? '', t: line.toState ?? '', d: line.detail ?? {} }))
  await runSql(
    tx,
    `INSERT INTO issue_history (project_id, issue_id, actor_kind, actor_id, actor_label, action, from_state, to_state, reason, detail)
     SELECT ?::uuid, x.i, ?, ?, ?, x.a, x.f, x.t, ?, x.d FROM jsonb_to_recordset(?::jsonb) AS x(i uuid, a text, f text, t text, d jsonb)`,
    [projectId, by.kind, by.id.slice(0, 200), by.label.slice(0, 200), reason.slice(0, 1000), JSON.stringify(rows)],
  )
}

/** One history line on an issue, for what another actor did to it (a fix pull request merged or closed). */
export async function recordIssueHistory(tx: SqlTx, projectId: string, issueId: string, entry: Omit<HistoryEntry, 'at'>): Promise<void> {
  const by: TriageActor = { kind: entry.actorKind, id: entry.actorId, label: entry.actorLabel }
  await writeHistory(tx, projectId, [{ issueId, action: entry.action, fromState: entry.fromState, toState: entry.toState, detail: entry.detail }], by, entry.reason)
}

export type { HistoryEntry, Triage, TriageActor, TriageChange, TriageMoved } from '../triage/types.js'
