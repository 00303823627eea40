/**
 * The exact process a sandboxed command becomes: `env -i <vars> [bwrap <options> --] prlimit
 * <limits> -- sh -c <wrapper> <command>`. Under bubblewrap: new namespaces (user, pid, mount, ipc,
 * uts, cgroup, and network unless asked for), the system's programs read-only, the workspace
 * read-write, and nothing else of the host. Without it: the same user, environment and limits, in
 * the host's namespaces. Either way the wrapper shell marks the moment the command starts on the
 * control channel (stderr), which the command itself never holds.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs'
import { dirname } from 'node:path'

/** The unprivileged user commands run as (when the service runs as root). */
export interface RunAs {
  readonly uid: number
  readonly gid: number
}

/** Per-process limits (prlimit), from the plugin's settings. */
export interface Limits {
  readonly cpuSeconds: number
  readonly memoryMb: number
  readonly maxProcesses: number
  readonly fileSizeMb: number
}

/** A sandbox's folders on the host: root (0700) holds the workspace and the commands' home. */
export interface SandboxDirs {
  readonly root: string
  readonly workspace: string
  readonly home: string
}

/** What to spawn. */
export interface Launch {
  readonly file: string
  readonly args: readonly string[]
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  readonly user: RunAs | undefined
}

/** Written to the control channel by the wrapper shell just before it execs the command. */
export const STARTED_MARKER = 'svc-sandbox: command started'
/** Where the workspace and home appear inside bubblewrap. */
const SANDBOX_WORKSPACE = '/workspace'
export const SANDBOX_HOME = '/home/sandbox'
/** Where prepared dependencies appear, read-only, inside bubblewrap; the workspace's node_modules links into it (prepared.ts). */
export const PREPARED_MODULES = '/prepared/node_modules'
const MIB = 1024 * 1024
// /tmp is memory (tmpfs): enough for compilers' and test runners' scratch files, and a runaway
// writer there fills this much RAM at most.
const TMP_BYTES = 512 * MIB

// The command's stderr joins its stdout (one interleaved stream), so fd 2 of everything it runs
// is the output pipe; the original fd 2, the control channel, is closed by the exec.
const WRAPPER = `printf '%s\\n' '${STARTED_MARKER}' >&2; exec /bin/sh -c "$1" 2>&1`

/**
 * env -i with exactly the command's variables, to put in front of everything else. Set here and
 * not only through spawn: whatever wraps spawn in the service's process (a test runner, an APM
 * agent) may add NODE_OPTIONS and more, and the first program keeps what it was started with for
 * all to read in /proc/<pid>/environ.
 */
export function cleanEnv(home: string): string[] {
  return ['/usr/bin/env', '-i', ...Object.entries(commandEnv(home)).map(([name, value]) => `${name}=${value}`)]
}

/** The command under prlimit and the wrapper shell. */
export function limitedShell(prlimit: string, limits: Limits, command: string): string[] {
  return [
    prlimit,
    `--cpu=${limits.cpuSeconds}`,
    // RLIMIT_DATA, not RLIMIT_AS: V8 reserves far more address space than it uses (RLIMIT_AS
    // stops node from starting), while the data limit counts the memory it actually writes.
    `--data=${limits.memoryMb * MIB}`,
    `--nproc=${limits.maxProcesses}`,
    `--fsize=${limits.fileSizeMb * MIB}`,
    '--core=0',
    '--',
    '/bin/sh',
    '-c',
    WRAPPER,
    'svc-sandbox',
    command,
  ]
}

/** Only these variables reach a command: none of the service's (keys, URLs, NODE_OPTIONS). */
export function commandEnv(home: string): Record<string, string> {
  const system = ['/usr/local/bin', '/usr/bin', '/bin']
  // The service's own node first when it lives elsewhere (/opt/node/bin), so commands get the same version.
  const nodeBin = dirname(realpathSync(process.execPath))
  const path = (system.includes(nodeBin) ? system : [nodeBin, ...system]).join(':')
  return { PATH: path, HOME: home, LANG: 'C.UTF-8', CI: 'true' }
}

/** Where and how bubblewrap runs a command. */
export interface BubblewrapOptions {
  readonly network: boolean
  /** The prepared dependencies (a folder the user can read), mounted at PREPARED_MODULES. */
  readonly nodeModules: string | undefined
  /** bubblewrap 0.8 or later (--size, --disable-userns). */
  readonly modern: boolean
}

/** command inside bubblewrap, spawned as user. */
export function bubblewrapLaunch(
  tools: { readonly bwrap: string; readonly prlimit: string },
  dirs: SandboxDirs,
  options: BubblewrapOptions & { readonly limits: Limits; readonly user: RunAs | undefined },
  command: string,
): Launch {
  const [file, ...args] = [...cleanEnv(SANDBOX_HOME), tools.bwrap, ...bubblewrapArgs(dirs, options), '--', ...limitedShell(tools.prlimit, options.limits, command)]
  return { file: file!, args, cwd: '/', env: commandEnv(SANDBOX_HOME), user: options.user }
}

/** command in the host's namespaces, spawned as user: the fallback without bubblewrap. */
export function plainLaunch(prlimit: string, dirs: SandboxDirs, limits: Limits, user: RunAs | undefined, command: string): Launch {
  const [file, ...args] = [...cleanEnv(dirs.home), ...limitedShell(prlimit, limits, command)]
  return { file: file!, args, cwd: dirs.workspace, env: commandEnv(dirs.home), user }
}

/** bubblewrap's options for a sandbox (everything before `--`). */
export function bubblewrapArgs(dirs: SandboxDirs, options: BubblewrapOptions): string[] {
  return [
    '--unshare-all',
    // Explicit, so --disable-userns applies: no nested namespaces to regain privileges in.
    ...(options.modern ? ['--unshare-user', '--disable-userns'] : []),
    ...(options.network ? ['--share-net'] : []),
    '--die-with-parent',
    // A new session: the command cannot reach the service's terminal (TIOCSTI).
    '--new-session',
    ...systemBinds(),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    // Older bubblewraps cannot size a tmpfs; theirs defaults to half the memory.
    ...(options.modern ? ['--size', String(TMP_BYTES)] : []),
    '--tmpfs',
    '/tmp',
    '--bind',
    dirs.workspace,
    SANDBOX_WORKSPACE,
    '--bind',
    dirs.home,
    SANDBOX_HOME,
    ...(options.nodeModules === undefined ? [] : ['--ro-bind', options.nodeModules, PREPARED_MODULES]),
    '--chdir',
    SANDBOX_WORKSPACE,
  ]
}

// What node, npm, git and sh need from /etc: name resolution, users, certificates, the loader's
// cache, Debian's alternatives. Nothing that holds secrets (/etc/ssl/private, shadow, the service's
// own configuration).
const ETC = [
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/host.conf',
  '/etc/nsswitch.conf',
  '/etc/gai.conf',
  '/etc/passwd',
  '/etc/group',
  '/etc/localtime',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
  '/etc/ssl/certs',
  '/etc/ssl/openssl.cnf',
]

let binds: string[] | undefined

/** Read-only binds of the system's programs and libraries, as this host lays them out. */
function systemBinds(): string[] {
  if (binds !== undefined) return binds
  const found = ['--ro-bind', '/usr', '/usr']
  // Merged-/usr systems have these as symlinks into /usr; older ones as folders.
  for (const path of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    const info = lstatOrUndefined(path)
    if (info?.isSymbolicLink()) found.push('--symlink', readlinkSync(path), path)
    else if (info?.isDirectory()) found.push('--ro-bind', path, path)
  }
  for (const path of ETC) found.push('--ro-bind-try', path, path)
  // Node installed outside /usr (/opt/node, a tarball): its whole prefix, so npm and npx beside it work.
  const prefix = dirname(dirname(realpathSync(process.execPath)))
  if (prefix !== '/' && prefix !== '/usr' && !prefix.startsWith('/usr/')) found.push('--ro-bind', prefix, prefix)
  binds = found
  return binds
}

function lstatOrUndefined(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}
