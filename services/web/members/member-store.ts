/**
 * A project's members and their roles (project_members, the web side's table): the list, a role
 * change, a removal and leaving. Every change locks the project's member rows first, so two owners
 * demoting each other at once cannot leave a project without an owner: the last owner can neither
 * leave, nor be removed, nor be made a member.
 */
import type { Db, Queryable } from '../../../shared/db/index.js'
import { isUuid } from '../../../shared/domain/uuid.js'
import type { Role } from '../projects/project-queries.js'

/** A member as the members page lists them. */
export interface Member {
  user_id: string
  email: string | null
  display_name: string
  codehost_login: string | null
  role: Role
  created_at: Date
}

/** How a change of membership ended; each refusal changed nothing. */
export type MembershipOutcome = 'done' | 'unchanged' | 'not_member' | 'last_owner'

/** The roles a form may name. */
export const ROLES: readonly Role[] = ['owner', 'member']

/** The role a form field names, or undefined. */
export function readRole(value: string | null): Role | undefined {
  return ROLES.find((role) => role === value)
}

/** The project's members, owners first, then by when they joined. */
export async function listMembers(db: Queryable, projectId: string): Promise<Member[]> {
  const { rows } = await db.query<Member>(
    `SELECT m.user_id, u.email, u.display_name, u.codehost_login, m.role, m.created_at
       FROM project_members m JOIN users u ON u.id = m.user_id
      WHERE m.project_id = $1 ORDER BY m.role = 'owner' DESC, m.created_at, u.email`,
    [projectId],
  )
  return rows
}

/** How a member is named on pages and in lists: their name, else email, else code-host login. */
export function memberLabel(member: Pick<Member, 'display_name' | 'email' | 'codehost_login'>): string {
  return member.display_name || member.email || member.codehost_login || 'someone'
}

/** True when userId is a member of the project (any role). */
export async function isMember(db: Queryable, projectId: string, userId: string): Promise<boolean> {
  if (!isUuid(userId)) return false
  const { rows } = await db.query('SELECT 1 FROM project_members WHERE project_id = $1 AND user_id = $2', [projectId, userId])
  return rows.length > 0
}

/**
 * Locks the project's member rows and answers the target's role and the number of owners; the
 * caller's change then sees no concurrent change to the same project's memberships.
 */
async function lockMembers(tx: Queryable, projectId: string, userId: string): Promise<{ role: Role | undefined; owners: number }> {
  const { rows } = await tx.query<{ user_id: string; role: Role }>('SELECT user_id, role FROM project_members WHERE project_id = $1 ORDER BY user_id FOR UPDATE', [projectId])
  return { role: rows.find((row) => row.user_id === userId)?.role, owners: rows.filter((row) => row.role === 'owner').length }
}

/** Removes userId from the project (also the way to leave it); the last owner stays. */
export async function removeMember(db: Db, projectId: string, userId: string): Promise<MembershipOutcome> {
  if (!isUuid(userId)) return 'not_member'
  return db.withTransaction(async (tx) => {
    const { role, owners } = await lockMembers(tx, projectId, userId)
    if (!role) return 'not_member'
    if (role === 'owner' && owners <= 1) return 'last_owner'
    await tx.query('DELETE FROM project_members WHERE project_id = $1 AND user_id = $2', [projectId, userId])
    return 'done'
  })
}

/** Gives userId the role; making the last owner a member is refused. */
export async function changeRole(db: Db, projectId: string, userId: string, role: Role): Promise<MembershipOutcome> {
  if (!isUuid(userId)) return 'not_member'
  return db.withTransaction(async (tx) => {
    const now = await lockMembers(tx, projectId, userId)
    if (!now.role) return 'not_member'
    if (now.role === role) return 'unchanged'
    if (now.role === 'owner' && now.owners <= 1) return 'last_owner'
    await tx.query('UPDATE project_members SET role = $3 WHERE project_id = $1 AND user_id = $2', [projectId, userId, role])
    return 'done'
  })
}
