/**
 * One local sandbox: its folders, the commands running in it, and its end. Destroying it stops
 * every command still running (their process groups are killed) before the folder goes.
 */
import { basename, join, resolve } from 'node:path'
import type { Logger } from '../../shared/log.js'
import { SandboxUnavailable, type CommandResult, type RunOptions, type Sandbox } from '../../shared/plugins/sandbox-types.js'
import { readInside, writeInside } from './files.js'
import type { Isolation } from './isolation.js'
import { bubblewrapLaunch, plainLaunch, PREPARED_MODULES, type Limits, type RunAs } from './launch.js'
import { layerDependencies, readableDependencies } from './prepared.js'
import { runCommand } from './run-command.js'
import type { LoadedTemplate } from './template.js'
import { copyTree, makeSandboxDirs, removeTree } from './workspace.js'

/** What every sandbox of one plugin instance shares. */
export interface LocalSandboxSetup {
  readonly isolation: Isolation
  readonly prlimit: string
  readonly limits: Limits
  readonly user: RunAs | undefined
  readonly log: Logger
}

/** Makes a sandbox's folders and answers the Sandbox over them. */
export async function openSandbox(setup: LocalSandboxSetup, loaded: LoadedTemplate): Promise<Sandbox> {
  const { isolation, prlimit, limits, user, log } = setup
  // Where the commands' user can read the prepared dependencies (a mirror when the template's folder is closed to it).
  const nodeModules = loaded.nodeModules === undefined ? undefined : await readableDependencies(loaded.nodeModules, user)
  const dirs = await makeSandboxDirs(user)
  const id = `local-${basename(dirs.root).replace(/^svc-sandbox-/, '')}`
  if (nodeModules !== undefined) {
    // Under bubblewrap the links point into the read-only mount; without it, at the host folder,
    // read-only only as far as its own permissions go.
    try {
      await layerDependencies(nodeModules, isolation.kind === 'bubblewrap' ? PREPARED_MODULES : nodeModules, join(dirs.workspace, 'node_modules'), user)
    } catch (error) {
      await removeTree(dirs.root)
      throw error
    }
  }
  const running = new Map<AbortController, Promise<unknown>>()
  let ended = false
  let removal: Promise<void> | undefined
  log.debug('sandbox created', { sandbox: id, isolation: isolation.kind })

  const alive = (): void => {
    if (ended) throw new SandboxUnavailable(`sandbox ${id} was destroyed; create another`)
  }

  const run = async (command: string, options: RunOptions): Promise<CommandResult> => {
    alive()
    const network = options.network ?? false
    const launch =
      isolation.kind === 'bubblewrap'
        ? bubblewrapLaunch({ bwrap: isolation.bwrap, prlimit }, dirs, { network, nodeModules, modern: isolation.modern, limits, user }, command)
        : plainLaunch(prlimit, dirs, limits, user, command)
    const stop = new AbortController()
    const signal = options.signal === undefined ? stop.signal : AbortSignal.any([options.signal, stop.signal])
    const result = runCommand(launch, { ...options, signal })
    running.set(
      stop,
      result.catch(() => undefined),
    )
    try {
      return await result
    } finally {
      running.delete(stop)
    }
  }

  return {
    id,
    template: loaded.template,
    async copyIn(hostDir) {
      alive()
      await copyTree(resolve(hostDir), dirs.workspace, user)
    },
    run,
    async readFile(path) {
      alive()
      return readInside(dirs.workspace, path)
    },
    async writeFile(path, content) {
      alive()
      await writeInside(dirs.workspace, path, content, user)
    },
    destroy() {
      ended = true
      removal ??= (async () => {
        for (const stop of running.keys()) stop.abort(new SandboxUnavailable(`sandbox ${id} was destroyed while the command ran`))
        await Promise.all(running.values())
        await removeTree(dirs.root)
        log.debug('sandbox destroyed', { sandbox: id })
      })().catch((error: unknown) => {
        // A later destroy() tries again rather than answering the old failure.
        removal = undefined
        throw error
      })
      return removal
    },
  }
}
