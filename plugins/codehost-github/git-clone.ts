/**
 * A shallow clone with the git command line: init, fetch one commit at depth 1 over smart HTTP,
 * check it out detached. The token reaches git only through an askpass helper that prints an
 * environment variable of the fetch process, so it is never in argv (visible to every user in
 * /proc), in the URL (stored in .git/FETCH_HEAD), in a credential store or in a message.
 */
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { CodehostUnreachable, RepositoryDenied } from '../../shared/plugins/types.js'

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

// git asks for the user name, then for the password: the token, read from this process's own
// environment. GitHub takes any user name with a token; x-access-token is its documented one.
const ASKPASS = `#!/bin/sh
case "$1" in
  Username*) echo x-access-token ;;
  *) printf '%s\\n' "$SVC_GIT_TOKEN" ;;
esac
`

/** Variables git may need from the service's environment; the rest (which holds the service's secrets) stays behind. */
const PASSED_ON = ['PATH', 'http_proxy', 'https_proxy', 'no_proxy', 'all_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'ALL_PROXY', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'GIT_SSL_CAINFO', 'GIT_SSL_CAPATH']

/** git's own words about a fetch the host refused, and about a host that could not be reached. */
const DENIED = /Authentication failed|could not read (Username|Password)|returned error: 40[134]|Repository not found|not found/i
const UNREACHABLE = /Could not resolve host|Failed to connect|Connection refused|timed out|Empty reply from server|Connection reset|Recv failure|returned error: (5\d\d|429)|RPC failed|early EOF|unexpected disconnect|SSL/i

/** Clones ref into dest (created if missing) at depth 1, checked out detached; answers the commit checked out. */
export async function shallowClone(request: CloneRequest): Promise<string> {
  const dest = resolve(request.dest)
  const deadline = AbortSignal.timeout(request.timeoutMs)
  const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline
  // mkdtemp makes the folder 0700: the helper and HOME are this process's alone.
  const scratch = await mkdtemp(join(tmpdir(), 'svc-git-'))
  try {
    const home = join(scratch, 'home')
    const askpass = join(scratch, 'askpass')
    await mkdir(home, { mode: 0o700 })
    await writeFile(askpass, ASKPASS, { mode: 0o700, flag: 'wx' })
    const env = gitEnvironment(home)
    const git = async (step: string, args: string[], extraEnv: Record<string, string> = {}): Promise<string> => {
      const outcome = await run(args, { ...env, ...extraEnv }, signal)
      if (outcome.code === 0) return outcome.stdout
      throw failure(request, step, outcome, deadline)
    }
    // No templates: nothing (hooks included) comes from the machine's git installation.
    await git('init', ['init', '--quiet', '--template=', dest])
    await git(
      'fetch',
      // credential.helper= empties the helper list, so no helper stores the token; no redirects,
      // so the token goes to the host the API named and nowhere else.
      ['-c', 'credential.helper=', '-c', 'http.followRedirects=false', '-C', dest, 'fetch', '--quiet', '--depth', '1', '--no-tags', '--no-recurse-submodules', request.url, request.ref],
      { GIT_ASKPASS: askpass, SVC_GIT_TOKEN: request.token },
    )
    // Symbolic links are written as plain files holding their target: whoever reads the work tree
    // cannot be led out of it (to /proc/self/environ, say) by a link in the repository.
    await git('checkout', ['-c', 'core.symlinks=false', '-c', 'advice.detachedHead=false', '-C', dest, 'checkout', '--quiet', '--detach', 'FETCH_HEAD'])
    return (await git('rev-parse', ['-C', dest, 'rev-parse', '--verify', 'HEAD^{commit}'])).trim()
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}

/** Replaces token, and any user:password in a URL, in text that is about to be shown. */
export function redact(text: string, token: string): string {
  const without = token === '' ? text : text.replaceAll(token, '[redacted]')
  return without.replace(/(\/\/)[^/@\s]*@/g, '$1[redacted]@')
}

function gitEnvironment(home: string): NodeJS.ProcessEnv {
  // eslint-disable-next-line no-restricted-syntax -- not configuration: git needs the process's PATH (and proxy and CA settings where a host has them), and only those are passed on
  const inherited = process.env
  const passed = Object.fromEntries(PASSED_ON.filter((name) => inherited[name] !== undefined).map((name) => [name, inherited[name]]))
  return {
    ...passed,
    // An empty HOME and no system config: no user's or machine's git settings or stored credentials apply.
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ALLOW_PROTOCOL: 'http:https',
    // English messages, which failure() sorts.
    LC_ALL: 'C',
  }
}

interface Outcome {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Kept of git's output: a failure's explanation is at its end, and a rev-parse is one line. */
const OUTPUT_LIMIT = 64 * 1024

/** Runs git with args (no shell); on abort kills its process group, remote helpers included. */
function run(args: string[], env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<Outcome> {
  return new Promise((resolvePromise, reject) => {
    if (signal.aborted) return resolvePromise({ code: null, stdout: '', stderr: '' })
    // detached: its own process group (so one kill reaches git-remote-http too) and no terminal to prompt on.
    const child = spawn('git', args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout = (stdout + chunk).slice(-OUTPUT_LIMIT)))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-OUTPUT_LIMIT)))
    const kill = (): void => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // Gone already.
      }
    }
    signal.addEventListener('abort', kill, { once: true })
    child.once('error', (error: NodeJS.ErrnoException) => {
      signal.removeEventListener('abort', kill)
      reject(error.code === 'ENOENT' ? new Error('git is not installed or not on PATH: install git (2.25 or later) to read repositories.') : error)
    })
    child.once('close', (code) => {
      signal.removeEventListener('abort', kill)
      resolvePromise({ code, stdout, stderr })
    })
  })
}

/** What a failed git step means to the caller: the caller's abort, an outage, a refusal, or an Error with git's redacted words. */
function failure(request: CloneRequest, step: string, outcome: Outcome, deadline: AbortSignal): unknown {
  if (request.signal?.aborted) return request.signal.reason
  if (deadline.aborted) {
    return new CodehostUnreachable(`Cloning ${request.repo} did not finish within ${Math.round(request.timeoutMs / 1000)} s: GitHub's git server is slow or down. Try again later.`)
  }
  const said = redact(outcome.stderr, request.token).trim()
  const last = said.split('\n').filter((line) => line.trim() !== '').at(-1) ?? `exit code ${outcome.code}`
  if (step === 'fetch' && DENIED.test(said)) {
    return new RepositoryDenied(`GitHub refused to let ${request.credential} fetch ${request.repo} over git (${last}): it needs read access to the repository's contents (Contents: read).`)
  }
  if (step === 'fetch' && UNREACHABLE.test(said)) return new CodehostUnreachable(`GitHub's git server could not be reached for ${request.repo} (${last}). Try again in a minute.`)
  return new Error(`git ${step} of ${request.repo} failed: ${said.slice(-2000) || `exit code ${outcome.code}`}`)
}
