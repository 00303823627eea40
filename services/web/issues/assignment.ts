/**
 * Assigning an issue to a member, for every door (the issue page's form, the project API, the tool
 * server): in one transaction the assignee is checked to be a member of the project (their
 * membership row held until the commit, so a removal cannot slip in between) and the grouper's
 * command sets the assignee and writes the history line.
 */
import type { Db } from '../../../shared/db/index.js'
import { isUuid } from '../../../shared/domain/uuid.js'
import { assignIssue } from '../../grouper/commands/assign.js'
import { ASSIGNEE_LABEL } from '../../grouper/read/issue-list.js'

type Actor = Parameters<typeof assignIssue>[4]

/** How an assignment ended; not_member and no_issue changed nothing. */
export type AssignResult = { kind: 'not_member' } | { kind: 'no_issue' } | { kind: 'done'; changed: boolean; assignee: { id: string; label: string } | null }

/** Assigns issueId of projectId to the member userId (null: unassigns), as by. */
export async function assignToMember(db: Db, projectId: string, issueId: string, userId: string | null, by: Actor): Promise<AssignResult> {
  if (!isUuid(issueId)) return { kind: 'no_issue' }
  if (userId !== null && !isUuid(userId)) return { kind: 'not_member' }
  return db.withTransaction(async (tx) => {
    let assignee: { id: string; label: string } | null = null
    if (userId !== null) {
      const { rows } = await tx.query<{ id: string; label: string }>(
        `SELECT u.id, ${ASSIGNEE_LABEL} AS label FROM project_members m JOIN users u ON u.id = m.user_id WHERE m.project_id = $1 AND m.user_id = $2 FOR SHARE OF m`,
        [projectId, userId.toLowerCase()],
      )
      if (!rows[0]) return { kind: 'not_member' } as const
      assignee = rows[0]
    }
    const done = await assignIssue(tx, projectId, issueId, assignee, by)
    if (!done) return { kind: 'no_issue' } as const
    return { kind: 'done', changed: done.changed, assignee } as const
  })
}

/** An issue's assignee as the JSON answers carry it: { id, label } or null. */
export function assigneeJson(issue: { assignee_id: string | null; assignee_label: string | null }): { id: string; label: string } | null {
  return issue.assignee_id ? { id: issue.assignee_id, label: issue.assignee_label ?? '' } : null
}
