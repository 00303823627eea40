/**
 * Running the git command line for the code host (clones and pushes): a clean environment with
 * none of the machine's or user's git settings, a scratch folder holding an empty HOME and an
 * askpass helper that prints the token from the git process's own environment. So the token is
 * never in argv (visible to every user in /proc), in a URL, in a credential store or in a message.
 */
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

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

/**
 * Options for every git command that talks to the host: credential.helper= empties the helper
 * list, so no helper stores the token; no redirects, so the token goes to the host the API named
 * and nowhere else.
 */
export const REMOTE_OPTIONS = ['-c', 'credential.helper=', '-c', 'http.followRedirects=false'] as const

/** git's own words about a request the host refused, and about a host that could not be reached. */
export const DENIED = /Authentication failed|could not read (Username|Password)|returned error: 40[134]|Repository not found|not found/i
export const UNREACHABLE = /Could not resolve host|Failed to connect|Connection refused|timed out|Empty reply from server|Connection reset|Recv failure|returned error: (5\d\d|429)|RPC failed|early EOF|unexpected disconnect|SSL/i

/** What a git command left behind. */
export interface Outcome {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** A scratch folder for one git job: the environment to run git with, and the token's variables for commands that talk to the host. */
export interface GitScratch {
  readonly dir: string
  readonly env: NodeJS.ProcessEnv
  /** Added to env for the commands that send the token: the askpass helper and the token it prints. */
  readonly credentials: Record<string, string>
}

/** Runs work with a fresh 0700 scratch folder (empty HOME, askpass helper for token), removed afterwards. */
export async function withGitScratch<T>(token: string, work: (scratch: GitScratch) => Promise<T>): Promise<T> {
  // mkdtemp makes the folder 0700: the helper and HOME are this process's alone.
  const dir = await mkdtemp(join(tmpdir(), 'svc-git-'))
  try {
    const home = join(dir, 'home')
    const askpass = join(dir, 'askpass')
    await mkdir(home, { mode: 0o700 })
    await writeFile(askpass, ASKPASS, { mode: 0o700, flag: 'wx' })
    return await work({ dir, env: gitEnvironment(home), credentials: { GIT_ASKPASS: askpass, SVC_GIT_TOKEN: token } })
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Replaces token, and any user:password in a URL, in text that is about to be shown. */
export function redact(text: string, token: string): string {
  const without = token === '' ? text : text.replaceAll(token, '[redacted]')
  return without.replace(/(\/\/)[^/@\s]*@/g, '$1[redacted]@')
}

/** The last line git said (redacted), or the exit code: the part of a failure worth quoting. */
export function lastWords(outcome: Outcome, token: string): { said: string; last: string } {
  const said = redact(outcome.stderr, token).trim()
  return { said, last: said.split('\n').filter((line) => line.trim() !== '').at(-1) ?? `exit code ${outcome.code}` }
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
    // English messages, which the callers sort.
    LC_ALL: 'C',
  }
}

/** Kept of git's output: a failure's explanation is at its end, and a rev-parse is one line. */
const OUTPUT_LIMIT = 64 * 1024

/** Runs git with args (no shell); on abort kills its process group, remote helpers included. */
export function runGit(args: readonly string[], env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<Outcome> {
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
