/**
 * sandbox-local: sandboxes on this machine, the built-in sandbox plugin. Each sandbox is a
 * throwaway folder; its commands run as an unprivileged user under bubblewrap (no network unless
 * asked for, none of the host's files but the system's, none of the service's environment), with
 * per-process limits set by prlimit. Without a working bubblewrap the commands still run as that
 * user with the same environment and limits, but in the host's namespaces: the label says so, a
 * warning is logged once, and requireIsolation refuses to run that way. docs/sandbox.md has more.
 */
import { realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import type { PluginModule, SandboxPlugin } from '../../shared/plugins/types.js'
import { SandboxUnavailable } from '../../shared/plugins/sandbox-types.js'
import { findPrlimit, probeIsolation } from './isolation.js'
import type { Limits } from './launch.js'
import { reachableBy } from './prepared.js'
import { openSandbox } from './sandbox.js'
import { loadTemplate } from './template.js'
import { unprivilegedUser } from './workspace.js'

/** Settings after the loader applied the schema's defaults. */
interface LocalSettings extends Limits {
  readonly requireIsolation: boolean
  readonly bwrapPath: string | undefined
}

const configSchema = {
  type: 'object',
  properties: {
    // Ten minutes of CPU per process: more than a large project's build or suite takes on one core;
    // the wall-time limit (the caller's timeoutMs) usually ends a command first.
    cpuSeconds: { type: 'integer', minimum: 1, maximum: 86_400, default: 600, description: 'CPU seconds each process of a command may use (RLIMIT_CPU).' },
    // 2 GiB per process: tsc and bundlers on large projects peak near it; the fixture suite needs 128 MiB.
    memoryMb: { type: 'integer', minimum: 64, maximum: 1_048_576, default: 2048, description: 'Memory each process may write, in MiB (RLIMIT_DATA; per process, not per sandbox).' },
    maxProcesses: { type: 'integer', minimum: 16, maximum: 100_000, default: 256, description: "Processes the sandbox user may have at once (RLIMIT_NPROC), counted across this machine's sandboxes." },
    fileSizeMb: { type: 'integer', minimum: 1, maximum: 1_048_576, default: 1024, description: 'Largest file a command may write, in MiB (RLIMIT_FSIZE).' },
    requireIsolation: { type: 'boolean', default: false, description: 'Refuse to create sandboxes (SandboxUnavailable) when bubblewrap cannot isolate them, instead of running without isolation.' },
    bwrapPath: { type: 'string', minLength: 1, pattern: '^/', description: 'Absolute path of bubblewrap; default the first of /usr/bin/bwrap, /usr/local/bin/bwrap, /bin/bwrap.' },
  },
  additionalProperties: false,
} as const

/** The plugin module the loader imports: manifest plus factory. */
const plugin: PluginModule<'sandbox'> = {
  manifest: { name: 'sandbox-local', kind: 'sandbox', version: '1.0.0', configSchema },
  async create(settings, context): Promise<SandboxPlugin> {
    const { cpuSeconds, memoryMb, maxProcesses, fileSizeMb, requireIsolation, bwrapPath } = settings as unknown as LocalSettings
    const log = context.log
    const user = unprivilegedUser()
    const isolation = await probeIsolation(bwrapPath, user)
    const prlimit = findPrlimit()
    const label = isolation.kind === 'bubblewrap' ? 'local (bubblewrap)' : 'local (no isolation: bubblewrap unavailable)'
    if (isolation.kind === 'none') {
      const consequence = requireIsolation
        ? 'every sandbox is refused (requireIsolation)'
        : 'commands run as an unprivileged user with a cleared environment and limits, but see the network and the host filesystem'
      log.warn(`sandbox-local: bubblewrap unavailable: ${consequence}`, { reason: isolation.reason })
    }
    // Without prlimit there are no limits; refusing each sandbox keeps the rest of the service running.
    if (prlimit === undefined) log.error('sandbox-local: prlimit not found; every sandbox is refused. Install util-linux.')
    const unreachable = await unreachableByUser(user)
    if (unreachable !== undefined) log.error(`sandbox-local: every sandbox is refused: ${unreachable}`)
    const limits = { cpuSeconds, memoryMb, maxProcesses, fileSizeMb }
    return {
      label,
      async create({ template, signal }) {
        signal?.throwIfAborted()
        const loaded = await loadTemplate(template)
        if (isolation.kind === 'none' && requireIsolation) {
          throw new SandboxUnavailable(`bubblewrap cannot isolate commands here (${isolation.reason}), and requireIsolation is set. Install bubblewrap, or unset requireIsolation.`)
        }
        if (prlimit === undefined) throw new SandboxUnavailable('prlimit (util-linux) is not installed, so commands cannot be limited. Install util-linux.')
        if (unreachable !== undefined) throw new SandboxUnavailable(unreachable)
        signal?.throwIfAborted()
        return openSandbox({ isolation, prlimit, limits, user, log }, loaded)
      },
    }
  },
}

export default plugin

/**
 * What the commands' user must reach but cannot, said with what to change: node (commands run the
 * service's own node) and the temporary directory (every sandbox's folder is made under it). The
 * prepared dependencies need no check here: prepared.ts mirrors them where the user may read.
 */
async function unreachableByUser(user: ReturnType<typeof unprivilegedUser>): Promise<string | undefined> {
  if (user === undefined) return undefined
  const node = realpathSync(process.execPath)
  if (!(await reachableBy(node, user))) {
    return `node (${node}) cannot be run by uid ${user.uid}, which runs the sandbox's commands: a folder above it is closed to other users. Install node where every user may run it (/usr/local, as the Docker image does), or open the folders above it (chmod o+rx).`
  }
  const temporary = realpathSync(tmpdir())
  if (!(await reachableBy(temporary, user, 'enter'))) {
    return `the temporary directory (${temporary}) is closed to uid ${user.uid}, which runs the sandbox's commands in folders made there. Set TMPDIR to a folder every user may enter (/tmp), or open it (chmod o+x).`
  }
  return undefined
}
