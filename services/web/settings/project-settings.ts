/**
 * What the project settings page changes: the attached repository (codehost_repo) and the
 * limited-draft opt-in (fix_limited_drafts). Attaching asks the code host the same question and
 * writes the same columns as an agent's attach (services/web/setup/actions.ts); every write is
 * also bounded by the owner, as every dashboard query is.
 */
import type { Redis } from 'ioredis'
import type { Queryable } from '../../../shared/db/index.js'
import { CodehostUnreachable, type CodehostPlugin, type RepoAccess } from '../../../shared/plugins/types.js'
import { publishWake, type StreamKeys } from '../../../shared/redis.js'
import { OWNER_OF_PROJECT, type ProjectFacts } from '../projects/project-queries.js'

/** GitHub's account names: letters and digits, single hyphens inside, at most 39 characters. */
const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/
/** GitHub's repository names: at most 100 of letters, digits, dots, hyphens and underscores. */
const NAME = /^[A-Za-z0-9._-]{1,100}$/

/**
 * The repository a settings form names: '' to detach, owner/repo, or undefined when the text is
 * neither (surrounding spaces are ignored).
 */
export function parseRepoSetting(text: string): string | undefined {
  const value = text.trim()
  if (value === '') return ''
  const parts = value.split('/')
  if (parts.length !== 2) return undefined
  const [owner, name] = parts as [string, string]
  if (!OWNER.test(owner) || !NAME.test(name) || name === '.' || name === '..') return undefined
  return value
}

export interface SettingsDeps {
  db: Queryable
  redis: Redis
  keys: StreamKeys
  codehost: CodehostPlugin | undefined
}

/** A repository answer other than visible: the repository was not changed. */
export type RepoRefusal = Exclude<RepoAccess, { status: 'visible' }>

export type RepoOutcome =
  | { kind: 'invalid_name' }
  | { kind: 'unchanged' }
  | { kind: 'detached' }
  /** Stored without asking anybody: there is no code host plugin. */
  | { kind: 'unchecked' }
  | { kind: 'attached'; private: boolean }
  | { kind: 'refused'; access: RepoRefusal }
  /** The code host could not be asked; nothing was written. */
  | { kind: 'unreachable' }

/** Short names of the outcomes that end in a redirect, for the page's ?saved= notice. */
export const SAVED_OUTCOMES = ['unchanged', 'detached', 'unchecked', 'attached', 'limited_drafts', 'timezone', 'data_limits'] as const
export type SavedOutcome = (typeof SAVED_OUTCOMES)[number]

/** True when the stored repository was confirmed by the code host the last time it was asked. */
function confirmed(project: ProjectFacts): boolean {
  return project.codehost_repo_access.startsWith('visible')
}

/**
 * Sets the project's repository from the settings form's text. A new repository (or one stored
 * before the code host could confirm it) is checked with the code host when there is one, and
 * stored only if the app can see it; without a code host it is stored unchecked.
 */
export async function setRepository(deps: SettingsDeps, userId: string, project: ProjectFacts, text: string): Promise<RepoOutcome> {
  const repo = parseRepoSetting(text)
  if (repo === undefined) return { kind: 'invalid_name' }
  const { db } = deps
  const scope = [project.id, userId]
  const wake = (): Promise<void> => publishWake(deps.redis, deps.keys.wakeProject(project.id))
  if (repo === '') {
    if (project.codehost_repo === '') return { kind: 'unchanged' }
    // The installation stays known: it is the owner's, and the next attach checks it is still there.
    await db.query(`UPDATE projects SET codehost_repo = '', codehost_repo_access = '', codehost_connected_at = NULL WHERE id = $1 AND ${OWNER_OF_PROJECT}`, scope)
    await wake()
    return { kind: 'detached' }
  }
  if (repo === project.codehost_repo && (!deps.codehost || confirmed(project))) return { kind: 'unchanged' }
  if (!deps.codehost) {
    await db.query(`UPDATE projects SET codehost_repo = $3, codehost_repo_access = '', codehost_connected_at = now() WHERE id = $1 AND ${OWNER_OF_PROJECT}`, [...scope, repo])
    await wake()
    return { kind: 'unchecked' }
  }
  let access: RepoAccess
  try {
    access = await deps.codehost.checkRepository(repo, project.codehost_installation_id)
  } catch (error) {
    if (error instanceof CodehostUnreachable) return { kind: 'unreachable' }
    throw error
  }
  // The same writes as an agent's attach (setup/actions.ts attachRepository), answer by answer.
  switch (access.status) {
    case 'visible':
      await db.query(
        `UPDATE projects SET codehost_repo = $3, codehost_installation_id = $4, codehost_repo_access = $5, codehost_connected_at = now() WHERE id = $1 AND ${OWNER_OF_PROJECT}`,
        [...scope, repo, access.installationId, access.private ? 'visible_private' : 'visible_public'],
      )
      await wake()
      return { kind: 'attached', private: access.private }
    case 'not_in_installation':
      await db.query(`UPDATE projects SET codehost_installation_id = $3, codehost_repo_access = 'not_in_installation' WHERE id = $1 AND ${OWNER_OF_PROJECT}`, [...scope, access.installationId])
      await wake()
      break
    case 'installation_gone':
      await db.query(`UPDATE projects SET codehost_installation_id = '', codehost_repo_access = 'installation_gone' WHERE id = $1 AND ${OWNER_OF_PROJECT}`, scope)
      await wake()
      break
    case 'not_installed':
    case 'suspended':
    case 'invalid':
      break
  }
  return { kind: 'refused', access }
}

/** Turns the limited-draft opt-in on or off; false when the project is not the user's. */
export async function setLimitedDrafts(db: Queryable, userId: string, projectId: string, on: boolean): Promise<boolean> {
  const { rowCount } = await db.query(`UPDATE projects SET fix_limited_drafts = $3 WHERE id = $1 AND ${OWNER_OF_PROJECT}`, [projectId, userId, on])
  return (rowCount ?? 0) > 0
}
