/**
 * Finds the programs sandbox-local needs and proves bubblewrap works here, once, when the plugin
 * starts: bwrap may be missing, too old, or unable to make namespaces (a container without user
 * namespaces, a kernel that forbids them to unprivileged users). The probe runs bwrap exactly as a
 * sandbox would, as the same user, so a failure here is a failure there.
 */
import { accessSync, constants } from 'node:fs'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { bubblewrapArgs, cleanEnv, commandEnv, SANDBOX_HOME, STARTED_MARKER, type RunAs } from './launch.js'
import { runCommand } from './run-command.js'
import { makeSandboxDirs, removeTree } from './workspace.js'

/** How commands are isolated: by bubblewrap, or not at all (and why). */
export type Isolation =
  | {
      readonly kind: 'bubblewrap'
      readonly bwrap: string
      /** 0.8 or later: --size for /tmp and --disable-userns are understood. */
      readonly modern: boolean
    }
  | { readonly kind: 'none'; readonly reason: string }

const BWRAP = ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap']
const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit', '/usr/local/bin/prlimit']

/** prlimit (util-linux), or undefined when this machine has none. */
export function findPrlimit(): string | undefined {
  return PRLIMIT.find(isExecutable)
}

/** Whether bwrap (bwrapPath, or the first found) can run a sandbox as user. */
export async function probeIsolation(bwrapPath: string | undefined, user: RunAs | undefined): Promise<Isolation> {
  const bwrap = bwrapPath ?? BWRAP.find(isExecutable)
  if (bwrap === undefined) return { kind: 'none', reason: `bwrap is not installed (looked for ${BWRAP.join(', ')}); apt-get install bubblewrap` }
  if (!isExecutable(bwrap)) return { kind: 'none', reason: `${bwrap} is not an executable file; apt-get install bubblewrap, or fix bwrapPath` }
  let modern: boolean
  try {
    const { stdout } = await promisify(execFile)(bwrap, ['--version'], { timeout: 10_000 })
    const [major = 0, minor = 0] = (/(\d+)\.(\d+)/.exec(stdout) ?? []).slice(1).map(Number)
    modern = major > 0 || minor >= 8
  } catch (error) {
    return { kind: 'none', reason: `${bwrap} --version failed: ${(error as Error).message}` }
  }
  const dirs = await makeSandboxDirs(user)
  try {
    const [file, ...args] = [...cleanEnv(SANDBOX_HOME), bwrap, ...bubblewrapArgs(dirs, { network: false, nodeModules: undefined, modern }), '--', '/bin/sh', '-c', `printf '%s\\n' '${STARTED_MARKER}' >&2`]
    const result = await runCommand({ file: file!, args, cwd: '/', env: commandEnv(SANDBOX_HOME), user }, { timeoutMs: 20_000 })
    if (result.infraError !== undefined) return { kind: 'none', reason: `${bwrap} cannot make a sandbox here: ${result.infraError}` }
    return { kind: 'bubblewrap', bwrap, modern }
  } finally {
    await removeTree(dirs.root)
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}
