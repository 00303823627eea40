/**
 * Merging issues that are one bug, and undoing it (docs/issues.md, "Merge"). A merged issue keeps
 * its row, marked merged_into its target: its fingerprints still find it, and the grouper sends
 * their events on to the target (store-events.ts), marked merged_from it. Its stored events move
 * to the target the same way, so undoing moves back exactly what came from it. The target's
 * counters then cover both; users and sessions are counted again over both issues' actors.
 *
 * tx must be a transaction (a pool runs each statement alone): the rows locked first hold off the
 * grouper's batches of both issues until the move and the recount commit.
 */
import { runSql, type SqlTx } from '../../../shared/db/sql-tx.js'
import type { TriageActor } from '../triage/types.js'
import { TriageRefused, writeHistory } from './triage.js'

interface Locked {
  id: string
  kind: string
  merged_into: string | null
  title: string
}

/** Merges sourceIds into targetId (all of projectId) in tx; answers the sources merged. Throws TriageRefused (merge_invalid) for a merge that cannot be. */
export async function mergeIssues(tx: SqlTx, projectId: string, targetId: string, sourceIds: readonly string[], by: TriageActor, reason = ''): Promise<string[]> {
  const sources = [...new Set(sourceIds)].filter((id) => id !== targetId)
  if (sources.length === 0) throw new TriageRefused('merge_invalid', 'Choose at least one other issue to merge into this one.')
  const locked = await lock(tx, projectId, [targetId, ...sources])
  const target = locked.get(targetId)
  if (!target) throw new TriageRefused('merge_invalid', 'The issue to merge into is not an issue of this project.')
  if (target.merged_into) throw new TriageRefused('merge_invalid', 'The issue to merge into was itself merged into another: merge into that one instead.')
  for (const id of sources) {
    const source = locked.get(id)
    if (!source) throw new TriageRefused('merge_invalid', `Issue ${id} is not an issue of this project.`)
    if (source.merged_into) throw new TriageRefused('merge_invalid', `Issue ${id} is already merged; undo that merge first.`)
    if (source.kind !== target.kind) throw new TriageRefused('merge_invalid', 'Only issues of one kind merge (an error into an error, a known problem into a known problem).')
  }
  const ids = JSON.stringify(sources)
  // A source's own merged issues follow it into the target.
  await runSql(tx, `UPDATE issues SET merged_into = ? WHERE merged_into IN (SELECT jsonb_array_elements_text(?::jsonb)::uuid)`, [targetId, ids])
  await runSql(tx, `UPDATE issues SET merged_into = ? WHERE id IN (SELECT jsonb_array_elements_text(?::jsonb)::uuid)`, [targetId, ids])
  await runSql(tx, `UPDATE events SET issue_id = ?, merged_from = COALESCE(merged_from, issue_id) WHERE issue_id IN (SELECT jsonb_array_elements_text(?::jsonb)::uuid)`, [targetId, ids])
  for (const table of ['issue_releases', 'issue_environments'] as const) {
    const column = table === 'issue_releases' ? 'release' : 'environment_id'
    await runSql(tx, `INSERT INTO ${table} (project_id, issue_id, ${column}, first_seen) SELECT project_id, ?::uuid, ${column}, first_seen FROM ${table} WHERE issue_id IN (SELECT jsonb_array_elements_text(?::jsonb)::uuid) ON CONFLICT DO NOTHING`, [targetId, ids])
  }
  await recount(tx, targetId)
  await writeHistory(tx, projectId, [{ issueId: targetId, action: 'merge', detail: { sources: sources.map((id) => ({ id, title: locked.get(id)!.title })) } }], by, reason)
  await writeHistory(tx, projectId, sources.map((id) => ({ issueId: id, action: 'merged' as const, detail: { into: targetId, title: target.title } })), by, reason)
  return sources
}

/** Undoes sourceId's merge in tx: its events (and those its fingerprints sent since) move back, both issues' counters are counted again. False when it is not merged. */
export async function unmergeIssue(tx: SqlTx, projectId: string, sourceId: string, by: TriageActor, reason = ''): Promise<boolean> {
  const [row] = await runSql<{ merged_into: string | null }>(tx, 'SELECT merged_into FROM issues WHERE id = ? AND project_id = ?', [sourceId, projectId])
  if (!row?.merged_into) return false
  const targetId = row.merged_into
  const locked = await lock(tx, projectId, [sourceId, targetId])
  if (locked.get(sourceId)?.merged_into !== targetId) return false
  await runSql(tx, 'UPDATE issues SET merged_into = NULL WHERE id = ?', [sourceId])
  await runSql(tx, 'UPDATE events SET issue_id = ?, merged_from = NULL WHERE issue_id = ? AND merged_from = ?', [sourceId, targetId, sourceId])
  await recount(tx, targetId)
  await recount(tx, sourceId)
  await writeHistory(tx, projectId, [{ issueId: sourceId, action: 'unmerge', detail: { from: targetId } }], by, reason)
  await writeHistory(tx, projectId, [{ issueId: targetId, action: 'unmerged', detail: { source: sourceId } }], by, reason)
  return true
}

/**
 * Locks ids (of projectId) in one order; answers those found. FOR NO KEY UPDATE, as the grouper's
 * batches lock issues: FOR UPDATE also waited on the key-share locks a batch's events insert takes
 * on their issue, so a batch that had inserted and then waited for this command's other issue
 * deadlocked with it.
 */
async function lock(tx: SqlTx, projectId: string, ids: string[]): Promise<Map<string, Locked>> {
  const rows = await runSql<Locked>(
    tx,
    `SELECT id, kind, merged_into, title FROM issues WHERE project_id = ? AND id IN (SELECT jsonb_array_elements_text(?::jsonb)::uuid) ORDER BY id FOR NO KEY UPDATE`,
    [projectId, JSON.stringify(ids)],
  )
  return new Map(rows.map((r) => [r.id, r]))
}

/**
 * An issue's counters from what it holds now: events, first and last seen from its events, users
 * and sessions from its own actors and those of the issues merged into it. An issue whose events
 * were all removed keeps its first and last seen.
 */
async function recount(tx: SqlTx, issueId: string): Promise<void> {
  await runSql(
    tx,
    `WITH family AS (SELECT ?::uuid AS id UNION SELECT id FROM issues WHERE merged_into = ?::uuid),
          e AS (SELECT count(*) AS n, min(received_at) AS first, max(received_at) AS last FROM events WHERE issue_id = ?::uuid),
          a AS (SELECT count(DISTINCT actor) FILTER (WHERE actor_kind = 'u') AS u, count(DISTINCT actor) FILTER (WHERE actor_kind = 's') AS s
                  FROM issue_actors WHERE issue_id IN (SELECT id FROM family))
     UPDATE issues SET event_count = e.n, user_count = a.u, session_count = a.s,
            first_seen = COALESCE(e.first, issues.first_seen), last_seen = COALESCE(e.last, issues.last_seen)
       FROM e, a WHERE issues.id = ?::uuid`,
    [issueId, issueId, issueId, issueId],
  )
}
