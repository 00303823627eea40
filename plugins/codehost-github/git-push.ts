/**
 * A fix's commit and push with the git command line, in a clone shallowClone made: stage every
 * change, commit them as the service's bot on the checked-out commit, force-push that commit to
 * one branch over smart HTTP. HEAD stays where the clone put it, so a push that failed can simply
 * be tried again, and each push carries every change since the clone. The token
 * reaches git only through the askpass helper of git-process.ts, as for the clone; the URL is
 * given on the command line (no remote is configured), so nothing about the host is written to
 * .git/config. A shallow clone pushes as is: the host has the history below its boundary.
 */
import { writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { CodehostUnreachable, RepositoryDenied } from '../../shared/plugins/types.js'
import { DENIED, lastWords, REMOTE_OPTIONS, runGit, UNREACHABLE, withGitScratch, type Outcome } from './git-process.js'

/** What commitAndPush needs; token and url are never quoted in an error. */
export interface PushRequest {
  /** owner/repo, for messages. */
  readonly repo: string
  /** The repository's smart-HTTP address, without credentials. */
  readonly url: string
  /** The clone's work tree. */
  readonly dir: string
  /** A name isBranchName accepts. */
  readonly branch: string
  readonly message: string
  readonly token: string
  /** Which credential the token is (CODEHOST_TOKEN, the app's installation), for messages. */
  readonly credential: string
  readonly timeoutMs: number
  readonly signal?: AbortSignal
}

/** The author and committer of every pushed commit: GitHub's noreply form, so no person's address is claimed. */
export const BOT = { name: 'svc-bot', email: 'svc-bot@users.noreply.github.com' } as const

/**
 * Options for every command in the work tree: no hook runs (whatever the work tree's .git holds),
 * no signing, and symbolic links stay links (the clone wrote them as plain files holding their
 * target; without this, staging would turn them into files).
 */
const LOCAL_OPTIONS = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.symlinks=false', '-c', 'commit.gpgSign=false', '-c', 'core.fsmonitor=false']

/** Stages and commits every change in dir on top of its HEAD (which does not move), force-pushes the commit to branch; answers it. */
export async function commitAndPush(request: PushRequest): Promise<string> {
  const dir = resolve(request.dir)
  const deadline = AbortSignal.timeout(request.timeoutMs)
  const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline
  return withGitScratch(request.token, async ({ dir: scratch, env, credentials }) => {
    const git = async (step: string, args: string[], extraEnv: Record<string, string> = {}): Promise<string> => {
      const outcome = await runGit([...LOCAL_OPTIONS, '-C', dir, ...args], { ...env, ...extraEnv }, signal)
      if (outcome.code === 0) return outcome.stdout.trim()
      throw failure(request, step, outcome, deadline)
    }
    const parent = await git('rev-parse', ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'])
    await git('add', ['add', '--all'])
    const tree = await git('write-tree', ['write-tree'])
    if (tree === (await git('rev-parse', ['rev-parse', '--verify', 'HEAD^{tree}']))) {
      throw new Error(`Nothing to push to ${request.repo}: the work tree has no change from its checked-out commit.`)
    }
    // From a file: a message of any length or shape, never read as an option.
    const messageFile = join(scratch, 'message')
    await writeFile(messageFile, `${request.message.trim()}\n`, { mode: 0o600 })
    const identity = { GIT_AUTHOR_NAME: BOT.name, GIT_AUTHOR_EMAIL: BOT.email, GIT_COMMITTER_NAME: BOT.name, GIT_COMMITTER_EMAIL: BOT.email }
    // commit-tree, not commit: HEAD and the branch the clone checked out stay as they are.
    const commit = await git('commit-tree', ['commit-tree', tree, '-p', parent, '-F', messageFile], identity)
    // --force: a rerun replaces the branch's fix. The full ref keeps the name from reading as anything else.
    await git('push', [...REMOTE_OPTIONS, 'push', '--force', '--no-verify', '--quiet', request.url, `${commit}:refs/heads/${request.branch}`], credentials)
    return commit
  })
}

/**
 * Whether git would take branch as a branch name (git check-ref-format --branch), narrowed to
 * printable ASCII: no component starting with a dot or ending in .lock, no "..", "@{", "//",
 * control characters, space, ~ ^ : ? * [ or backslash, not "@" or "HEAD", nothing that starts
 * with "-" or "/" or ends with "/" or ".".
 */
export function isBranchName(branch: unknown): branch is string {
  if (typeof branch !== 'string' || branch === '' || branch.length > 200 || branch === '@' || branch === 'HEAD') return false
  if (!/^[\x21-\x7e]+$/.test(branch) || /[~^:?*[\\]|\.\.|@\{|\/\//.test(branch)) return false
  if (branch.startsWith('-') || branch.startsWith('/') || branch.endsWith('/') || branch.endsWith('.')) return false
  return branch.split('/').every((part) => !part.startsWith('.') && !part.endsWith('.lock'))
}

/** What a failed git step means to the caller: the caller's abort, an outage, a refusal, or an Error with git's redacted words. */
function failure(request: PushRequest, step: string, outcome: Outcome, deadline: AbortSignal): unknown {
  if (request.signal?.aborted) return request.signal.reason
  if (deadline.aborted) {
    return new CodehostUnreachable(`Pushing ${request.branch} to ${request.repo} did not finish within ${Math.round(request.timeoutMs / 1000)} s: GitHub's git server is slow or down. Try again later.`)
  }
  const { said, last } = lastWords(outcome, request.token)
  if (step === 'rev-parse') return new Error(`${request.dir} is not a clone of ${request.repo} with a checked-out commit; clone it with repositories.clone first.`)
  if (step === 'push') {
    // The host took the credential but a rule (branch protection, a ruleset, a push hook) refused the branch.
    const rejected = /\[remote rejected\][^\n]*/.exec(said)
    if (rejected) return new RepositoryDenied(`GitHub refused the push of ${request.branch} to ${request.repo} (${rejected[0].trim()}): a branch protection rule or ruleset forbids it; allow svc's branches, or pick another branch name.`)
    if (DENIED.test(said)) {
      return new RepositoryDenied(`GitHub refused to let ${request.credential} push to ${request.repo} over git (${last}): it needs write access to the repository's contents (Contents: read and write).`)
    }
    if (UNREACHABLE.test(said)) return new CodehostUnreachable(`GitHub's git server could not be reached to push to ${request.repo} (${last}). Try again in a minute.`)
  }
  return new Error(`git ${step} in the clone of ${request.repo} failed: ${said.slice(-2000) || `exit code ${outcome.code}`}`)
}
