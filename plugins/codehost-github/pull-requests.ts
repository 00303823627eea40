/**
 * Write access for fix delivery (PullRequestAccess): a fix branch pushed with git (git-push.ts),
 * pull requests opened, updated and marked ready for review, comments, and the CI verdict on the
 * pushed commit (ci.ts), through the REST API and, for "ready for review" and back to draft, which
 * REST cannot do, the GraphQL mutations. Same credential as reading: CODEHOST_TOKEN, else the installation token.
 * The token needs Contents and Pull requests read and write, Checks and Commit statuses read.
 */
import type { Octokit } from '@octokit/rest'
import type { Logger } from '../../shared/log.js'
import { RepositoryDenied, type CiResult, type PullRequestAccess, type PullRequestRef } from '../../shared/plugins/types.js'
import type { PullRequestStatus } from '../../shared/plugins/pull-request-types.js'
import { readCi } from './ci.js'
import { cloneUrl, createCredentials, ownerAndName, refusalOr, type CredentialSources, type GithubRepository, type Purpose } from './credentials.js'
import { commitAndPush, isBranchName } from './git-push.js'
import type { GithubApi, GithubFailure } from './github-client.js'

/** What the pull-request part needs from the plugin. */
export interface PullRequestSettings extends CredentialSources {
  /** Origins git may be sent to with the token: the API's and the web's. */
  readonly origins: readonly string[]
  /** Time limit of one push (commit included). */
  readonly pushTimeoutMs: number
  readonly log: Logger
}

const PUSH: Purpose = { verb: 'push to', grant: 'Contents: read and write' }
const PULLS: Purpose = { verb: 'open pull requests in', grant: 'Pull requests: read and write' }
const CI: Purpose = { verb: 'read the CI of', grant: 'Checks: read and Commit statuses: read' }
const SHA = /^[0-9a-f]{40}$/i

/** The fields of a pull request (REST) the plugin reads. */
interface GithubPull {
  readonly number: number
  readonly node_id: string
  readonly html_url: string
  readonly draft?: boolean
  readonly state: string
  readonly merged_at?: string | null
  readonly closed_at?: string | null
  readonly merge_commit_sha?: string | null
  readonly head: { readonly ref: string; readonly sha: string; readonly repo?: { readonly full_name: string } | null }
}

const READY_FOR_REVIEW = `mutation ($pullRequestId: ID!) {
  markPullRequestReadyForReview(input: { pullRequestId: $pullRequestId }) { pullRequest { isDraft } }
}`

const CONVERT_TO_DRAFT = `mutation ($pullRequestId: ID!) {
  convertPullRequestToDraft(input: { pullRequestId: $pullRequestId }) { pullRequest { isDraft } }
}`

/** The PullRequestAccess of one configured plugin. */
export function createPullRequestAccess(settings: PullRequestSettings): PullRequestAccess {
  const { api } = settings
  const credentials = createCredentials(settings)

  /** Runs call with repo's credential; a failure is sorted as action (what the message says was refused) for purpose. */
  async function withCredential<T>(repo: string, installationId: string, purpose: Purpose, action: string, call: (octokit: Octokit, owner: string, name: string) => Promise<T>): Promise<T> {
    const { owner, name } = ownerAndName(repo)
    const credential = await credentials(repo, installationId, purpose)
    try {
      return await call(api.user(credential.token), owner, name)
    } catch (error) {
      throw failureOf(api, error, `GitHub does not let ${credential.label} ${action}`, purpose.grant)
    }
  }

  return {
    async pushBranch(repo, installationId, { dir, branch, message, signal }) {
      if (!isBranchName(branch)) throw new Error(branchRefused(branch))
      if (typeof message !== 'string' || message.trim() === '') throw new Error('A commit message is required to push a fix.')
      const { owner, name } = ownerAndName(repo)
      const credential = await credentials(repo, installationId, PUSH)
      try {
        let data: GithubRepository
        try {
          data = (await api.user(credential.token).rest.repos.get({ owner, repo: name, request: { signal } })).data as GithubRepository
        } catch (error) {
          throw failureOf(api, error, `GitHub does not let ${credential.label} push to ${owner}/${name}`, PUSH.grant)
        }
        // The service never merges: a fix never lands on the branch people build from.
        if (branch.toLowerCase() === data.default_branch.toLowerCase()) throw new Error(`${branch} is the default branch of ${data.full_name}: a fix is pushed to a branch of its own.`)
        const started = Date.now()
        const commit = await commitAndPush({
          repo: data.full_name,
          url: cloneUrl(data, settings.origins),
          dir,
          branch,
          message,
          token: credential.token,
          credential: credential.label,
          timeoutMs: settings.pushTimeoutMs,
          signal,
        })
        settings.log.debug('branch pushed', { repo: data.full_name, branch, commit, ms: Date.now() - started })
        return { commit }
      } catch (error) {
        // The caller's cancel wins over whatever the interrupted step made of it.
        if (signal?.aborted) throw signal.reason
        throw error
      }
    },

    async findOpen(repo, installationId, branch) {
      if (!isBranchName(branch)) throw new Error(branchRefused(branch))
      return withCredential(repo, installationId, PULLS, `list the pull requests of ${repo}`, async (octokit, owner, name) => {
        const { data } = await octokit.rest.pulls.list({ owner, repo: name, head: `${owner}:${branch}`, state: 'open', per_page: 100 })
        // head filters by owner:branch, which a fork's branch of the same name could also match.
        const found = (data as GithubPull[]).find((pull) => pull.head.ref === branch && pull.head.repo?.full_name.toLowerCase() === `${owner}/${name}`.toLowerCase())
        return found && refOf(found)
      })
    },

    async open(repo, installationId, { branch, base, title, body, draft }) {
      for (const ref of [branch, base]) if (!isBranchName(ref)) throw new Error(branchRefused(ref))
      assertText(title, body)
      return withCredential(repo, installationId, PULLS, `open a pull request from ${branch} into ${base} in ${repo}`, async (octokit, owner, name) => {
        const { data } = await octokit.rest.pulls.create({ owner, repo: name, head: branch, base, title, body, draft: draft === true })
        return refOf(data as GithubPull)
      })
    },

    async update(repo, installationId, number, { title, body, ready }) {
      assertNumber(number)
      assertText(title, body)
      return withCredential(repo, installationId, PULLS, `update pull request #${number} of ${repo}`, async (octokit, owner, name) => {
        const pull = (await octokit.rest.pulls.update({ owner, repo: name, pull_number: number, title, body })).data as GithubPull
        // Never the reverse: a pull request someone marked ready stays ready.
        if (ready !== true || pull.draft !== true) return refOf(pull)
        const marked = await octokit.graphql<{ markPullRequestReadyForReview: { pullRequest: { isDraft: boolean } } }>(READY_FOR_REVIEW, { pullRequestId: pull.node_id })
        return { ...refOf(pull), draft: marked.markPullRequestReadyForReview.pullRequest.isDraft }
      })
    },

    async convertToDraft(repo, installationId, number) {
      assertNumber(number)
      return withCredential(repo, installationId, PULLS, `turn pull request #${number} of ${repo} back into a draft`, async (octokit, owner, name) => {
        const pull = (await octokit.rest.pulls.get({ owner, repo: name, pull_number: number })).data as GithubPull
        if (pull.draft === true || pull.state !== 'open') return refOf(pull)
        const converted = await octokit.graphql<{ convertPullRequestToDraft: { pullRequest: { isDraft: boolean } } }>(CONVERT_TO_DRAFT, { pullRequestId: pull.node_id })
        return { ...refOf(pull), draft: converted.convertPullRequestToDraft.pullRequest.isDraft }
      })
    },

    async comment(repo, installationId, number, body) {
      assertNumber(number)
      if (typeof body !== 'string' || body.trim() === '') throw new Error('A comment needs a body.')
      await withCredential(repo, installationId, PULLS, `comment on pull request #${number} of ${repo}`, (octokit, owner, name) =>
        octokit.rest.issues.createComment({ owner, repo: name, issue_number: number, body }),
      )
    },

    async read(repo, installationId, number): Promise<PullRequestStatus> {
      assertNumber(number)
      return withCredential(repo, installationId, PULLS, `read pull request #${number} of ${repo}`, async (octokit, owner, name) => {
        const pull = (await octokit.rest.pulls.get({ owner, repo: name, pull_number: number })).data as GithubPull
        const ref = refOf(pull)
        const at = (value: string | null | undefined): Date | null => (value ? new Date(value) : null)
        return { ...ref, mergedAt: at(pull.merged_at), closedAt: at(pull.closed_at), mergeSha: ref.state === 'merged' ? (pull.merge_commit_sha ?? '') : '' }
      })
    },

    async ci(repo, installationId, commit): Promise<CiResult> {
      if (typeof commit !== 'string' || !SHA.test(commit)) throw new Error('ci needs the full 40-character sha of a pushed commit.')
      return withCredential(repo, installationId, CI, `read the CI of ${commit.slice(0, 12)} in ${repo}`, (octokit, owner, name) => readCi(octokit, owner, name, commit.toLowerCase()))
    },
  }
}

function refOf(pull: GithubPull): PullRequestRef {
  const state = pull.merged_at ? 'merged' : pull.state === 'open' ? 'open' : 'closed'
  return { number: pull.number, url: pull.html_url, draft: pull.draft === true, state, headSha: pull.head.sha }
}

function branchRefused(branch: unknown): string {
  const shown = typeof branch === 'string' && /^[\x21-\x7e]{1,100}$/.test(branch) ? `"${branch}"` : '(not printable)'
  return `${shown} is not a branch name svc pushes to: use letters, digits and - _ . / (git check-ref-format rules, no "..", no leading "-" or ".").`
}

function assertNumber(number: number): void {
  if (!Number.isSafeInteger(number) || number < 1) throw new Error('A pull request number is a positive integer.')
}

function assertText(title: string, body: string): void {
  if (typeof title !== 'string' || title.trim() === '') throw new Error('A pull request needs a title.')
  if (typeof body !== 'string') throw new Error('A pull request body is text (it may be empty).')
}

/** What GitHub's answer means to the caller: a validation message quoted (422), GraphQL's refusal, else refusalOr's sorting. */
function failureOf(api: GithubApi, error: unknown, what: string, needs: string): Error {
  if (error instanceof Error && error.name === 'GraphqlResponseError') {
    const errors = (error as Error & { errors?: ReadonlyArray<{ type?: string; message?: string }> }).errors ?? []
    if (errors.some((e) => e.type === 'FORBIDDEN' || e.type === 'NOT_FOUND')) {
      return new RepositoryDenied(`${what}: GitHub's GraphQL API refused it. It needs ${needs}; grant it, or set CODEHOST_TOKEN to a token that has it.`)
    }
    return new Error(`${what}: GitHub's GraphQL API answered ${quote(errors.map((e) => e.message ?? e.type ?? '').join('; '))}.`)
  }
  if ((error as GithubFailure).status === 422) return new Error(`${what}: GitHub answered 422 (${quote(validationMessage(error))}).`)
  return refusalOr(api, error, what, needs)
}

/** GitHub's own words about a request it refused as invalid ("A pull request already exists for ..."). */
function validationMessage(error: unknown): string {
  const data = (error as { response?: { data?: { message?: string; errors?: ReadonlyArray<{ message?: string; code?: string; field?: string }> } } }).response?.data
  const details = (data?.errors ?? []).map((e) => e.message ?? [e.field, e.code].filter(Boolean).join(' ')).filter((m) => m !== '')
  return details.length > 0 ? details.join('; ') : (data?.message ?? 'Validation Failed')
}

/** One line of at most 300 characters. */
function quote(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 300) || 'no reason given'
}
