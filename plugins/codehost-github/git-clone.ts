/**
 * A shallow clone with the git command line: init, fetch one commit at depth 1 over smart HTTP,
 * check it out detached. The token reaches git only through the askpass helper of git-process.ts,
 * so it is never in argv, in the URL (stored in .git/FETCH_HEAD), in a credential store or in a
 * message.
 */
import { resolve } from 'node:path'
import { CodehostUnreachable, RepositoryDenied } from '../../shared/plugins/types.js'
import { DENIED, lastWords, REMOTE_OPTIONS, runGit, UNREACHABLE, withGitScratch, type Outcome } from './git-process.js'

/** What shallowClone needs; token and url are never quoted in an error. */
export interface CloneRequest {
  /** owner/repo, for messages. */
  readonly repo: string
  /** The repository's smart-HTTP address, without credentials. */
  readonly url: string
  /** A 40-hex commit, or refs/heads/<branch>. */
  readonly ref: string
  readonly dest: string
  readonly token: string
  /** Which credential the token is (CODEHOST_TOKEN, the app's installation), for messages. */
  readonly credential: string
  readonly timeoutMs: number
  readonly signal?: AbortSignal
}

/** Clones ref into dest (created if missing) at depth 1, checked out detached; answers the commit checked out. */
export async function shallowClone(request: CloneRequest): Promise<string> {
  const dest = resolve(request.dest)
  const deadline = AbortSignal.timeout(request.timeoutMs)
  const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline
  return withGitScratch(request.token, async ({ env, credentials }) => {
    const git = async (step: string, args: string[], extraEnv: Record<string, string> = {}): Promise<string> => {
      const outcome = await runGit(args, { ...env, ...extraEnv }, signal)
      if (outcome.code === 0) return outcome.stdout
      throw failure(request, step, outcome, deadline)
    }
    // No templates: nothing (hooks included) comes from the machine's git installation.
    await git('init', ['init', '--quiet', '--template=', dest])
    await git(
      'fetch',
      [...REMOTE_OPTIONS, '-C', dest, 'fetch', '--quiet', '--depth', '1', '--no-tags', '--no-recurse-submodules', request.url, request.ref],
      credentials,
    )
    // Symbolic links are written as plain files holding their target: whoever reads the work tree
    // cannot be led out of it (to /proc/self/environ, say) by a link in the repository.
    await git('checkout', ['-c', 'core.symlinks=false', '-c', 'advice.detachedHead=false', '-C', dest, 'checkout', '--quiet', '--detach', 'FETCH_HEAD'])
    return (await git('rev-parse', ['-C', dest, 'rev-parse', '--verify', 'HEAD^{commit}'])).trim()
  })
}

/** What a failed git step means to the caller: the caller's abort, an outage, a refusal, or an Error with git's redacted words. */
function failure(request: CloneRequest, step: string, outcome: Outcome, deadline: AbortSignal): unknown {
  if (request.signal?.aborted) return request.signal.reason
  if (deadline.aborted) {
    return new CodehostUnreachable(`Cloning ${request.repo} did not finish within ${Math.round(request.timeoutMs / 1000)} s: GitHub's git server is slow or down. Try again later.`)
  }
  const { said, last } = lastWords(outcome, request.token)
  if (step === 'fetch' && DENIED.test(said)) {
    return new RepositoryDenied(`GitHub refused to let ${request.credential} fetch ${request.repo} over git (${last}): it needs read access to the repository's contents (Contents: read).`)
  }
  if (step === 'fetch' && UNREACHABLE.test(said)) return new CodehostUnreachable(`GitHub's git server could not be reached for ${request.repo} (${last}). Try again in a minute.`)
  return new Error(`git ${step} of ${request.repo} failed: ${said.slice(-2000) || `exit code ${outcome.code}`}`)
}
