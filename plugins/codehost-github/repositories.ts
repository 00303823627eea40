/**
 * Read access to repositories (RepositoryAccess): what the investigator needs to look at the code
 * an error came from. The credential is CODEHOST_TOKEN when configured, else the installation
 * token of the app's installation the project attached through. The REST API answers where the
 * repository lives and which commit a release names; git fetches the contents (git-clone.ts).
 */
import type { Logger } from '../../shared/log.js'
import { CodehostUnreachable, type ClonedRepository, type RepositoryAccess, type RepositoryFiles, type RepositoryInfo } from '../../shared/plugins/types.js'
import { cloneUrl, createCredentials, ownerAndName, refusalOr, type Credential, type CredentialSources, type GithubRepository, type Purpose } from './credentials.js'
import { shallowClone } from './git-clone.js'
import { classify, type GithubFailure } from './github-client.js'

/** What the repository part needs from the plugin. */
export interface RepositorySettings extends CredentialSources {
  /** Origins git may be sent to with the token: the API's and the web's. */
  readonly origins: readonly string[]
  readonly cloneTimeoutMs: number
  readonly log: Logger
}

const READ: Purpose = { verb: 'read', grant: 'Contents: read' }
const CONTENTS_READ = "read access to the repository's contents (Contents: read)"

const SHA = /^[0-9a-f]{40}$/i

/** The RepositoryAccess of one configured plugin. */
export function createRepositoryAccess(settings: RepositorySettings): RepositoryAccess {
  const { api } = settings
  const credentials = createCredentials(settings)
  const credentialFor = (repo: string, installationId: string): Promise<Credential> => credentials(repo, installationId, READ)

  /** GET /repos/{owner}/{repo} with the repository's credential; a refusal is RepositoryDenied saying what to grant. */
  async function repository(repo: string, installationId: string, signal?: AbortSignal): Promise<{ credential: Credential; data: GithubRepository }> {
    const { owner, name } = ownerAndName(repo)
    const credential = await credentialFor(repo, installationId)
    try {
      const response = await api.user(credential.token).rest.repos.get({ owner, repo: name, request: { signal } })
      return { credential, data: response.data as GithubRepository }
    } catch (error) {
      throw refusalOr(api, error, `GitHub does not let ${credential.label} read ${owner}/${name}`, CONTENTS_READ)
    }
  }

  async function resolveCommit(repo: string, installationId: string, ref: string): Promise<string | undefined> {
    const wanted = typeof ref === 'string' ? ref.trim() : ''
    if (!isRefName(wanted)) return undefined
    const { owner, name } = ownerAndName(repo)
    const credential = await credentialFor(repo, installationId)
    try {
      // per_page 1: GitHub pages the commit's file list by it, and only the sha is wanted.
      const { data } = await api.user(credential.token).rest.repos.getCommit({ owner, repo: name, ref: wanted, per_page: 1 })
      return SHA.test(data.sha) ? data.sha.toLowerCase() : undefined
    } catch (error) {
      const status = (error as GithubFailure).status
      const sorted = classify(api, error)
      // 404 (no such branch or tag) and 422 (no commit with that sha) both mean: the release names nothing here.
      if (!(sorted instanceof CodehostUnreachable) && (status === 404 || status === 422)) return undefined
      throw refusalOr(api, error, `GitHub does not let ${credential.label} read ${owner}/${name}`, CONTENTS_READ)
    }
  }

  return {
    async info(repo, installationId): Promise<RepositoryInfo> {
      const { data } = await repository(repo, installationId)
      return { fullName: data.full_name, defaultBranch: data.default_branch, webUrl: data.html_url }
    },
    resolveCommit,
    async listFiles(repo, installationId): Promise<RepositoryFiles> {
      const { credential, data } = await repository(repo, installationId)
      const { owner, name } = ownerAndName(data.full_name)
      try {
        // One call: the tree of the default branch's head, recursive (GitHub truncates past 100,000 entries or 7 MB).
        const tree = (await api.user(credential.token).rest.git.getTree({ owner, repo: name, tree_sha: data.default_branch, recursive: 'true' })).data
        return { branch: data.default_branch, paths: tree.tree.filter((entry) => entry.type === 'blob' && typeof entry.path === 'string').map((entry) => entry.path!), truncated: tree.truncated }
      } catch (error) {
        throw refusalOr(api, error, `GitHub does not let ${credential.label} list the files of ${owner}/${name}`, CONTENTS_READ)
      }
    },
    async clone(repo, installationId, dest, options = {}): Promise<ClonedRepository> {
      const { signal } = options
      try {
        const { credential, data } = await repository(repo, installationId, signal)
        const commit = options.commit === undefined ? undefined : await commitOf(repo, installationId, options.commit)
        const started = Date.now()
        const checkedOut = await shallowClone({
          repo: data.full_name,
          url: cloneUrl(data, settings.origins),
          // refs/heads/ keeps a branch named like an option from ever reading as one.
          ref: commit ?? `refs/heads/${data.default_branch}`,
          dest,
          token: credential.token,
          credential: credential.label,
          timeoutMs: settings.cloneTimeoutMs,
          signal,
        })
        if (commit !== undefined && checkedOut !== commit) throw new Error(`git checked out ${checkedOut} instead of ${commit} in ${data.full_name}.`)
        settings.log.debug('repository cloned', { repo: data.full_name, commit: checkedOut, ms: Date.now() - started })
        return { commit: checkedOut, dir: dest }
      } catch (error) {
        // The caller's cancel wins over whatever the interrupted step made of it.
        if (signal?.aborted) throw signal.reason
        throw error
      }
    },
  }

  /** A full sha as is; anything else (short sha, tag, branch) through the API. */
  async function commitOf(repo: string, installationId: string, commit: string): Promise<string> {
    if (SHA.test(commit)) return commit.toLowerCase()
    const resolved = await resolveCommit(repo, installationId, commit)
    if (resolved === undefined) throw new Error(`${repo} has no commit, tag or branch named "${isRefName(commit) ? commit : '(not a ref name)'}".`)
    return resolved
  }
}

/** A branch or tag name git accepts (git check-ref-format, simplified), or a sha: anything else names nothing. */
function isRefName(ref: string): boolean {
  if (ref === '' || ref.length > 255 || ref.startsWith('-') || ref.startsWith('/') || ref.endsWith('/') || ref.endsWith('.') || ref.endsWith('.lock')) return false
  // eslint-disable-next-line no-control-regex -- control characters are what git forbids
  return !/[\x00-\x20\x7f~^:?*[\\]|\.\.|@\{|\/\/|\/\./.test(ref)
}
