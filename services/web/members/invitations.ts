/**
 * Invitations (project_invitations): a single-use link <baseUrl>/invitations/<token> an owner
 * hands to a colleague. Only the token's SHA-256 is stored. Reading a link says what it is
 * (pending, expired, used, revoked, unknown) without changing anything; accepting makes the
 * signed-in account a member with the invitation's role and uses the link up, in one transaction.
 */
import type { Db, Queryable } from '../../../shared/db/index.js'
import { isUuid } from '../../../shared/domain/uuid.js'
import { hashToken, randomToken } from '../accounts/tokens.js'
import type { Role } from '../projects/project-queries.js'

/** The shape of a token we hand out (randomToken: 43 base64url characters). */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/

/** What a link is now; every state but pending is final. */
export type InvitationState = 'pending' | 'expired' | 'used' | 'revoked' | 'unknown'

/** A link as its page shows it. */
export interface InvitationView {
  state: InvitationState
  projectId?: string
  projectName?: string
  role?: Role
  expiresAt?: Date
}

/** A pending invitation as the members page lists it (never its token: only its hash is kept). */
export interface PendingInvitation {
  id: string
  role: Role
  created_at: Date
  expires_at: Date
  created_by_email: string | null
}

interface InvitationRow {
  id: string
  project_id: string
  project_name: string
  role: Role
  expires_at: Date
  accepted_at: Date | null
  revoked_at: Date | null
}

/** Creates an invitation to the project with role; answers the token, which exists only in this answer. */
export async function createInvitation(db: Queryable, projectId: string, role: Role, createdBy: string, ttlMs: number): Promise<{ id: string; token: string; expiresAt: Date }> {
  const token = randomToken()
  const { rows } = await db.query<{ id: string; expires_at: Date }>(
    `INSERT INTO project_invitations (project_id, token_hash, role, created_by, expires_at)
     VALUES ($1, $2, $3, $4, now() + $5 * interval '1 millisecond') RETURNING id, expires_at`,
    [projectId, hashToken(token), role, createdBy, ttlMs],
  )
  return { id: rows[0]!.id, token, expiresAt: rows[0]!.expires_at }
}

/** The project's invitations that still work, newest first. */
export async function listPendingInvitations(db: Queryable, projectId: string): Promise<PendingInvitation[]> {
  const { rows } = await db.query<PendingInvitation>(
    `SELECT i.id, i.role, i.created_at, i.expires_at, u.email AS created_by_email
       FROM project_invitations i LEFT JOIN users u ON u.id = i.created_by
      WHERE i.project_id = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now()
      ORDER BY i.created_at DESC`,
    [projectId],
  )
  return rows
}

/** Revokes a pending invitation of the project; false when there is none with that id. */
export async function revokeInvitation(db: Queryable, projectId: string, invitationId: string): Promise<boolean> {
  if (!isUuid(invitationId)) return false
  const { rowCount } = await db.query(
    'UPDATE project_invitations SET revoked_at = now() WHERE id = $1 AND project_id = $2 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()',
    [invitationId, projectId],
  )
  return (rowCount ?? 0) > 0
}

/** The state of a row; revoked and used win over expired, since they happened first or for good. */
function stateOf(row: InvitationRow | undefined, now: Date): InvitationState {
  if (!row) return 'unknown'
  if (row.accepted_at) return 'used'
  if (row.revoked_at) return 'revoked'
  if (row.expires_at.getTime() <= now.getTime()) return 'expired'
  return 'pending'
}

async function findInvitation(db: Queryable, token: string, lock: boolean): Promise<InvitationRow | undefined> {
  // A token of another shape (cut short, altered) cannot be one we handed out: no query needed.
  if (!TOKEN_SHAPE.test(token)) return undefined
  const { rows } = await db.query<InvitationRow>(
    `SELECT i.id, i.project_id, p.name AS project_name, i.role, i.expires_at, i.accepted_at, i.revoked_at
       FROM project_invitations i JOIN projects p ON p.id = i.project_id WHERE i.token_hash = $1${lock ? ' FOR UPDATE OF i' : ''}`,
    [hashToken(token)],
  )
  return rows[0]
}

/** What the link of token is, without changing anything. The project is named only while it is pending. */
export async function readInvitation(db: Queryable, token: string): Promise<InvitationView> {
  const row = await findInvitation(db, token, false)
  const state = stateOf(row, new Date())
  if (state !== 'pending' || !row) return { state }
  return { state, projectId: row.project_id, projectName: row.project_name, role: row.role, expiresAt: row.expires_at }
}

/** How accepting ended: joined, already a member (the link stays unused), or the link's final state. */
export type AcceptOutcome = { kind: 'joined'; projectId: string; role: Role } | { kind: 'already_member'; projectId: string } | { kind: Exclude<InvitationState, 'pending'> }

/** Makes userId a member through the link of token and uses it up; anything else changes nothing. */
export async function acceptInvitation(db: Db, token: string, userId: string): Promise<AcceptOutcome> {
  return db.withTransaction(async (tx) => {
    const row = await findInvitation(tx, token, true)
    const state = stateOf(row, new Date())
    if (state !== 'pending' || !row) return { kind: state as Exclude<InvitationState, 'pending'> }
    const joined = await tx.query(
      `INSERT INTO project_members (project_id, user_id, role, invited_by)
       SELECT $1, $2, $3, created_by FROM project_invitations WHERE id = $4 ON CONFLICT DO NOTHING`,
      [row.project_id, userId, row.role, row.id],
    )
    if ((joined.rowCount ?? 0) === 0) return { kind: 'already_member', projectId: row.project_id }
    await tx.query('UPDATE project_invitations SET accepted_at = now(), accepted_by = $2 WHERE id = $1', [row.id, userId])
    return { kind: 'joined', projectId: row.project_id, role: row.role }
  })
}
