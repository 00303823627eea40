/**
 * What the project pages read. Every query takes the signed-in user and answers nothing for a
 * project they do not own, so a page cannot show another person's project by mistake.
 */
import type { Queryable } from '../../../shared/db/index.js'
import { isUuid } from '../../../shared/domain/uuid.js'

export interface ProjectSummary {
  id: string
  name: string
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
}

export interface KeySummary {
  id: string
  kind: string
  label: string
  created_at: Date
  revoked_at: Date | null
}

/** The user's projects, newest first. */
export async function listOwnProjects(db: Queryable, userId: string): Promise<ProjectSummary[]> {
  const { rows } = await db.query<ProjectSummary>(
    `SELECT p.id, p.name, p.created_at, (SELECT count(*)::int FROM issues i WHERE i.project_id = p.id AND i.noise = '') AS issue_count
       FROM projects p WHERE p.owner_id = $1 ORDER BY p.created_at DESC, p.name`,
    [userId],
  )
  return rows
}

/** One project with what its pages show beside the setup facts (those: readProjectFacts), if userId owns it. */
export async function getOwnProject(db: Queryable, userId: string, projectId: string): Promise<ProjectFacts | undefined> {
  if (!isUuid(projectId)) return undefined
  const { rows } = await db.query<ProjectFacts>(
    `SELECT id, name, created_at, codehost_repo, codehost_installation_id, codehost_connected_at, codehost_repo_access,
            fix_limited_drafts, timezone
       FROM projects WHERE id = $1 AND owner_id = $2`,
    [projectId, userId],
  )
  return rows[0]
}

/** The project's keys by id and kind; the secrets are not stored, so they cannot be shown. */
export async function listProjectKeys(db: Queryable, projectId: string): Promise<KeySummary[]> {
  const { rows } = await db.query<KeySummary>('SELECT id, kind, label, created_at, revoked_at FROM api_keys WHERE project_id = $1 ORDER BY created_at, id', [projectId])
  return rows
}
