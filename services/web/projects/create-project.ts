/**
 * Creating a project by hand: the dashboard's New project page and `svc create-project` call
 * createProjectWithKeys, and setup approval mints its keys with mintProjectKeys, so a project made
 * any of the three ways starts with the same three keys. The project and its keys are written in
 * one transaction: a failure leaves neither. The tokens are returned once and never stored.
 */
import type { Db, Queryable } from '../../../shared/db/index.js'
import { isStorable } from '../../../shared/domain/untrusted-text.js'
import { generateKey, type KeyKind } from '../../../shared/keys.js'
import { parseRepoSetting } from '../settings/project-settings.js'

/** The projects table's bound on a name (projects_name_check). */
export const PROJECT_NAME_MAX = 200

/** The three keys a new project gets, in the order pages list them. */
export const PROJECT_KEY_KINDS: readonly KeyKind[] = ['ingest', 'api', 'sourcemap']

/** The tokens of a project's new keys, named as the setup poll answer names them. */
export interface ProjectKeys {
  ingest_key: string
  api_key: string
  sourcemap_key: string
}

export interface NewProjectInput {
  name: string
  /** owner/repo, or '' for none. */
  repo: string
}

export type NewProjectProblem = { code: 'invalid_project_name' | 'invalid_repo'; field: 'name' | 'repo'; message: string }

/** The input trimmed and checked, or the first problem with a message that says what to type. */
export function checkNewProject(input: NewProjectInput): { ok: true; name: string; repo: string } | ({ ok: false } & NewProjectProblem) {
  const name = input.name.trim()
  if (name === '' || name.length > PROJECT_NAME_MAX || !isStorable(name)) {
    return { ok: false, code: 'invalid_project_name', field: 'name', message: `Give the project a name of 1 to ${PROJECT_NAME_MAX} characters, such as the app's name.` }
  }
  const repo = isStorable(input.repo) ? parseRepoSetting(input.repo) : undefined
  if (repo === undefined) return { ok: false, code: 'invalid_repo', field: 'repo', message: 'The repository must be owner/name as on the code host (for example acme/shop), or left empty.' }
  return { ok: true, name, repo }
}

/** Mints the three keys of projectId on tx (the caller's transaction); the tokens are shown once. */
export async function mintProjectKeys(tx: Queryable, projectId: string, label: string): Promise<ProjectKeys> {
  const tokens: Record<string, string> = {}
  for (const kind of PROJECT_KEY_KINDS) {
    const key = generateKey(kind)
    await tx.query('INSERT INTO api_keys (id, project_id, kind, secret_hash, label) VALUES ($1, $2, $3, $4, $5)', [key.id, projectId, kind, key.secretHash, label.slice(0, 200)])
    tokens[`${kind}_key`] = key.token
  }
  return tokens as unknown as ProjectKeys
}

export interface CreatedProject {
  projectId: string
  name: string
  /** The repository stored with the project ('' when none was given or it is left to the settings page). */
  repo: string
  /** The project's number in its Sentry DSN (projects/dsn.ts). */
  dsnNumber: string
  keys: ProjectKeys
}

/**
 * Creates a project owned by ownerId (null: nobody's yet) and its three keys in one transaction.
 * repo is stored unchecked, with the columns the settings page writes when there is no code host
 * to ask (settings/project-settings.ts); with a code host, pass '' and attach through
 * setRepository, which asks it. name and repo must have passed checkNewProject.
 */
export async function createProjectWithKeys(db: Pick<Db, 'withTransaction'>, input: { name: string; repo: string; ownerId: string | null; keyLabel: string }): Promise<CreatedProject> {
  return db.withTransaction(async (tx) => {
    const { rows } = await tx.query<{ id: string; dsn_number: string }>(
      `INSERT INTO projects (name, owner_id, codehost_repo, codehost_connected_at) VALUES ($1, $2, $3, CASE WHEN $3 = '' THEN NULL ELSE now() END) RETURNING id, dsn_number`,
      [input.name, input.ownerId, input.repo],
    )
    const projectId = rows[0]!.id
    const keys = await mintProjectKeys(tx, projectId, input.keyLabel)
    return { projectId, name: input.name, repo: input.repo, dsnNumber: rows[0]!.dsn_number, keys }
  })
}
