/**
 * What the project pages read. Every query takes the signed-in user and answers nothing for a
 * project they are not a member of (project_members, asked on every request: a removed member
 * loses access at their next request), so a page cannot show another person's project by mistake.
 */
import type { Queryable } from '../../../shared/db/index.js'
import { isUuid } from '../../../shared/domain/uuid.js'

/** A member's role: an owner changes settings, keys, members and chat; a member reads and triages. */
export type Role = 'owner' | 'member'

export interface ProjectSummary {
  id: string
  name: string
  role: Role
  created_at: Date
  /** Issues that are not noise, as the issue list shows by default. */
  issue_count: number
}

export interface ProjectFacts {
  id: string
  name: string
  created_at: Date
  codehost_repo: string
  codehost_installation_id: string
  codehost_connected_at: Date | null
  codehost_repo_access: string
  /** The limited-draft opt-in: a fix without a reproducing test may open as a draft marked "not verified". */
  fix_limited_drafts: boolean
  /** The IANA time zone the daily digest comes at 09:00 in. */
  timezone: string
  /** The signed-in person's role in it. */
  role: Role
}

export interface KeySummary {
  id: string
  kind: string
  label: string
  created_at: Date
  revoked_at: Date | null
}

/** The projects the user is a member of, newest first; owner only: those they own (setup approval picks among them). */
export async function listOwnProjects(db: Queryable, userId: string, ownerOnly = false): Promise<ProjectSummary[]> {
  const { rows } = await db.query<ProjectSummary>(
    `SELECT p.id, p.name, p.created_at, m.role, (SELECT count(*)::int FROM issues i WHERE i.project_id = p.id AND i.noise = '') AS issue_count
       FROM projects p JOIN project_members m ON m.project_id = p.id AND m.user_id = $1
      WHERE NOT $2 OR m.role = 'owner' ORDER BY p.created_at DESC, p.name`,
    [userId, ownerOnly],
  )
  return rows
}

/** One project with what its pages show beside the setup facts (those: readProjectFacts), if userId is a member. */
export async function getMemberProject(db: Queryable, userId: string, projectId: string): Promise<ProjectFacts | undefined> {
  if (!isUuid(projectId)) return undefined
  const { rows } = await db.query<ProjectFacts>(
    `SELECT p.id, p.name, p.created_at, p.codehost_repo, p.codehost_installation_id, p.codehost_connected_at, p.codehost_repo_access,
            p.fix_limited_drafts, p.timezone, m.role
       FROM projects p JOIN project_members m ON m.project_id = p.id AND m.user_id = $2 WHERE p.id = $1`,
    [projectId, userId],
  )
  return rows[0]
}

/** The project, if userId is one of its owners: what every settings, keys and members write checks. */
export async function getOwnProject(db: Queryable, userId: string, projectId: string): Promise<ProjectFacts | undefined> {
  const project = await getMemberProject(db, userId, projectId)
  return project?.role === 'owner' ? project : undefined
}

/** SQL true when $2 is an owner of the projects row in scope: the bound of every owner-only write. */
export const OWNER_OF_PROJECT = `EXISTS (SELECT 1 FROM project_members m WHERE m.project_id = projects.id AND m.user_id = $2 AND m.role = 'owner')`

/** The project's keys by id and kind; the secrets are not stored, so they cannot be shown. */
export async function listProjectKeys(db: Queryable, projectId: string): Promise<KeySummary[]> {
  const { rows } = await db.query<KeySummary>('SELECT id, kind, label, created_at, revoked_at FROM api_keys WHERE project_id = $1 ORDER BY created_at, id', [projectId])
  return rows
}
