/**
 * Which token a repository is read or written with: CODEHOST_TOKEN when configured, else the
 * installation token of the app's installation the project attached through. Shared by the read
 * side (repositories.ts) and the write side (pull-requests.ts), which differ only in what a
 * refusal tells the person to grant.
 */
import { CodehostUnreachable, RepositoryDenied } from '../../shared/plugins/types.js'
import { parseRepo } from './check-repository.js'
import { classify, type GithubApi, type GithubFailure } from './github-client.js'

/** A token and how messages name it. */
export interface Credential {
  readonly token: string
  /** CODEHOST_TOKEN, or the app's installation <id>. */
  readonly label: string
}

/** Where the credentials come from. */
export interface CredentialSources {
  readonly api: GithubApi
  /** CODEHOST_TOKEN; undefined when not configured. */
  readonly token: string | undefined
  /** Mints (or reuses) an installation's token; undefined without an app. */
  readonly installationToken: ((installationId: number) => Promise<string>) | undefined
}

/** What the caller is about to do, for the message when no credential can: "read" / "Contents: read". */
export interface Purpose {
  readonly verb: string
  readonly grant: string
}

/** The credential for repo: CODEHOST_TOKEN, else installationId's token; RepositoryDenied saying what to grant when neither works. */
export function createCredentials(sources: CredentialSources): (repo: string, installationId: string, purpose: Purpose) => Promise<Credential> {
  return async (repo, installationId, purpose) => {
    if (sources.token !== undefined) return { token: sources.token, label: 'CODEHOST_TOKEN' }
    const id = typeof installationId === 'string' ? installationId.trim() : ''
    if (id !== '' && sources.installationToken !== undefined) {
      const label = `the GitHub App's installation ${/^\d{1,20}$/.test(id) ? id : '(malformed id)'}`
      if (!/^\d{1,20}$/.test(id)) throw new RepositoryDenied(`${label} is not one GitHub gave: attach ${repo} through the app again.`)
      try {
        return { token: await sources.installationToken(Number(id)), label }
      } catch (error) {
        const sorted = classify(sources.api, error)
        const status = (error as GithubFailure).status
        // 404: uninstalled; 403: suspended. Either way a person must act on the code host.
        if (!(sorted instanceof CodehostUnreachable) && (status === 404 || status === 403)) {
          throw new RepositoryDenied(`${label} was removed or suspended on GitHub (${status}): install the app again and attach ${repo}, or set CODEHOST_TOKEN.`)
        }
        throw sorted
      }
    }
    throw new RepositoryDenied(
      `No credential can ${purpose.verb} ${repo}: set CODEHOST_TOKEN to a fine-grained token with ${purpose.grant} on it, or attach the repository through the GitHub App.`,
    )
  }
}

/** owner and name of repo; an Error saying what a name looks like otherwise. */
export function ownerAndName(repo: string): { owner: string; name: string } {
  const parsed = parseRepo(repo)
  if (!parsed) throw new Error('repo must be owner/repo as GitHub shows it, for example octocat/hello-world.')
  return parsed
}

/** The fields of GET /repos/{owner}/{repo} the plugin reads. */
export interface GithubRepository {
  readonly full_name: string
  readonly default_branch: string
  readonly html_url: string
  readonly clone_url?: string
}

/** The clone address the API gave, only on the host the plugin is configured for, and never with credentials in it. */
export function cloneUrl(data: GithubRepository, origins: readonly string[]): string {
  const raw = data.clone_url ?? ''
  const url = URL.canParse(raw) ? new URL(raw) : undefined
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '' || !origins.includes(url.origin)) {
    throw new Error(`GitHub gave a clone address for ${data.full_name} outside the configured host (apiUrl, webUrl); the token is not sent there.`)
  }
  return url.href
}

/**
 * A failed request as the caller reports it: 401, 403 and 404 are RepositoryDenied saying what
 * (what) GitHub refused and what the token needs (needs); an outage stays CodehostUnreachable.
 */
export function refusalOr(api: GithubApi, error: unknown, what: string, needs: string): Error {
  const sorted = classify(api, error)
  const status = (error as GithubFailure).status
  if (sorted instanceof CodehostUnreachable || (status !== 401 && status !== 403 && status !== 404)) return sorted
  const why = status === 401 ? 'the token was refused (401): it expired or was revoked' : `GitHub answered ${status}`
  return new RepositoryDenied(`${what}: ${why}. It needs ${needs}; grant it, or set CODEHOST_TOKEN to a token that has it.`)
}
