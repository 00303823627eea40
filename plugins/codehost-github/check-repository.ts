/**
 * Whether the configured GitHub App can see owner/repo, in the terms the attach endpoint answers
 * with (RepoAccess). Every question is asked as the app (JWT) except the repository's privacy,
 * which only an installation token of the installation that covers it can read. Without an app
 * (token only), the question is whether the token can read the repository.
 */
import { CodehostUnreachable, type RepoAccess } from '../../shared/plugins/types.js'
import { classify, github, unlessNotFound, type GithubApi, type GithubClients, type GithubFailure } from './github-client.js'

/** GitHub's rules: owners are 1-39 letters, digits or hyphens; repositories up to 100 of [A-Za-z0-9._-]. */
const REPO = /^([A-Za-z0-9][A-Za-z0-9-]{0,38})\/([A-Za-z0-9._-]{1,100})$/

interface Installation {
  readonly id: number
  readonly suspended_at?: string | null
  readonly html_url?: string
}

const INVALID = 'repo must be owner/repo as GitHub shows it, for example octocat/hello-world.'

/** owner and name of repo (owner/repo), or undefined when it is not a name GitHub could have given. */
export function parseRepo(repo: unknown): { owner: string; name: string } | undefined {
  const match = REPO.exec(typeof repo === 'string' ? repo.trim() : '')
  if (!match || match[2] === '.' || match[2] === '..') return undefined
  return { owner: match[1]!, name: match[2]! }
}

/** Answers what GitHub says about repo (owner/repo) for the app; throws CodehostUnreachable in an outage. */
export async function checkRepository(clients: GithubClients, installUrl: string, repo: string, knownInstallationId: string): Promise<RepoAccess> {
  const parsed = parseRepo(repo)
  if (!parsed) return { status: 'invalid', message: INVALID }
  const { owner, name } = parsed
  const known = typeof knownInstallationId === 'string' ? knownInstallationId.trim() : ''
  if (known !== '') {
    // Not a number: not an id GitHub ever gave, so whatever it referred to is gone.
    if (!/^\d{1,20}$/.test(known)) return { status: 'installation_gone', installationId: known }
    const still = await unlessNotFound(clients, () => clients.app.rest.apps.getInstallation({ installation_id: Number(known) }))
    if (still === undefined) return { status: 'installation_gone', installationId: known }
  }
  const covering = await unlessNotFound(clients, () => clients.app.rest.apps.getRepoInstallation({ owner, repo: name }))
  if (covering !== undefined) return visibleOrNot(clients, covering.data, owner, name)
  const onOwner = await ownerInstallation(clients, owner)
  if (onOwner === undefined) return { status: 'not_installed', installUrl }
  if (onOwner.suspended_at) return { status: 'suspended', installationId: String(onOwner.id) }
  return { status: 'not_in_installation', installationId: String(onOwner.id), addRepoUrl: onOwner.html_url ?? '' }
}

async function visibleOrNot(clients: GithubClients, installation: Installation, owner: string, repo: string): Promise<RepoAccess> {
  const installationId = String(installation.id)
  // A suspended installation cannot mint tokens; its state is the answer.
  if (installation.suspended_at) return { status: 'suspended', installationId }
  const client = await github(clients, () => clients.installation(installation.id))
  const repository = await unlessNotFound(clients, () => client.rest.repos.get({ owner, repo }))
  // Installed on the owner with selected repositories, and this one not selected.
  if (repository === undefined) return { status: 'not_in_installation', installationId, addRepoUrl: installation.html_url ?? '' }
  return { status: 'visible', installationId, private: repository.data.private }
}

/** The app's installation on a user or organisation account, if any. */
async function ownerInstallation(clients: GithubClients, owner: string): Promise<Installation | undefined> {
  const onUser = await unlessNotFound(clients, () => clients.app.rest.apps.getUserInstallation({ username: owner }))
  if (onUser !== undefined) return onUser.data
  const onOrg = await unlessNotFound(clients, () => clients.app.rest.apps.getOrgInstallation({ org: owner }))
  return onOrg?.data
}

/**
 * Token only (no app): visible, with no installation, when the token can read the repository;
 * otherwise invalid with what to grant, since there is no app to install or extend.
 */
export async function checkRepositoryWithToken(api: GithubApi, token: string, repo: string): Promise<RepoAccess> {
  const parsed = parseRepo(repo)
  if (!parsed) return { status: 'invalid', message: INVALID }
  try {
    const { data } = await api.user(token).rest.repos.get({ owner: parsed.owner, repo: parsed.name })
    return { status: 'visible', installationId: '', private: data.private }
  } catch (error) {
    const sorted = classify(api, error)
    const status = (error as GithubFailure).status
    if (sorted instanceof CodehostUnreachable || (status !== 401 && status !== 403 && status !== 404)) throw sorted
    const why = status === 401 ? 'GitHub refused CODEHOST_TOKEN (401): it expired or was revoked; create a new one' : `CODEHOST_TOKEN cannot see ${parsed.owner}/${parsed.name} (${status})`
    return { status: 'invalid', message: `${why}. Give the token read access to the repository (fine-grained token: select it under Repository access, with Contents: read), or configure the GitHub App.` }
  }
}
