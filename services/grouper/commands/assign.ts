/**
 * Assigning an issue to a person (docs/members.md): issues.assignee_id, written by the grouper,
 * which owns issues and their history. The caller (the dashboard, the project API, the tool
 * server) has checked in the same transaction that the assignee is a member of the project; this
 * locks the issue, sets or clears its assignee, and writes one history line (who, when, from, to).
 */
import { runSql, type SqlTx } from '../../../shared/db/sql-tx.js'
import { ASSIGNEE_LABEL } from '../read/issue-list.js'
import { writeHistory, type TriageActor } from './triage.js'

/** A person an issue is assigned to: their id and how the history names them. */
export interface Assignee {
  id: string
  label: string
}

/** What an assignment did; undefined when the project has no such issue. */
export interface Assigned {
  changed: boolean
  from: string | null
  to: string | null
}

/** Assigns issueId of projectId to assignee (null: unassigns); the same assignee again changes nothing. */
export async function assignIssue(tx: SqlTx, projectId: string, issueId: string, assignee: Assignee | null, by: TriageActor, reason = ''): Promise<Assigned | undefined> {
  const [row] = await runSql<{ assignee_id: string | null; label: string | null }>(
    tx,
    `SELECT i.assignee_id, (SELECT ${ASSIGNEE_LABEL} FROM users u WHERE u.id = i.assignee_id) AS label
       FROM issues i WHERE i.project_id = ? AND i.id = ? FOR NO KEY UPDATE OF i`,
    [projectId, issueId],
  )
  if (!row) return undefined
  const to = assignee?.id ?? null
  if (row.assignee_id === to) return { changed: false, from: row.assignee_id, to }
  await runSql(tx, 'UPDATE issues SET assignee_id = ? WHERE id = ?', [to, issueId])
  // Names are what people typed about themselves: they go in detail, which answers to agents keep under untrusted.
  const detail: Record<string, unknown> = { from: row.assignee_id, to, from_label: row.assignee_id ? (row.label ?? '') : null, to_label: assignee?.label ?? null }
  await writeHistory(tx, projectId, [{ issueId, action: to ? 'assign' : 'unassign', detail }], by, reason)
  return { changed: true, from: row.assignee_id, to }
}
