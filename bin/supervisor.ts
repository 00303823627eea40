/**
 * What `svc up` runs its parts under: each part is an `svc` child process, and one that exits on
 * its own (a crash, kill -9, the OOM killer) is started again after a backoff (1 s doubling to
 * 30 s; back to 1 s once a run lasted a minute), with a log line each time. The others keep
 * serving meanwhile. Children run in process groups of their own, so a terminal's Ctrl-C reaches
 * only the supervisor, which then stops each child once and in order; a child whose supervisor
 * dies (kill -9) sees its IPC channel close and stops itself (see untilSignal).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { Logger } from '../shared/log.js'
import { MINUTE, SECOND } from '../shared/time.js'

export interface PartSpec {
  /** How logs and /health name it. */
  name: string
  /** The svc command and its arguments. */
  args: string[]
  env: NodeJS.ProcessEnv
}

const FIRST_DELAY = SECOND
const MAX_DELAY = 30 * SECOND
/** A run this long counts as healthy: the next crash restarts after the first delay again. */
const STEADY_AFTER = MINUTE
/** How long a part may take to stop after SIGTERM before it is killed. */
const STOP_GRACE = 15 * SECOND

const ENTRY = fileURLToPath(new URL('./svc.js', import.meta.url))

interface Part {
  spec: PartSpec
  child: ChildProcess | undefined
  startedAt: number
  /** Said "ready" at least once: only such a part is restarted. */
  served: boolean
  restarts: number
  delay: number
  timer: NodeJS.Timeout | undefined
}

export class Supervisor {
  readonly #log: Logger
  readonly #parts: Part[] = []
  #stopping = false

  constructor(log: Logger) {
    this.#log = log
  }

  /**
   * Starts the parts in order, each once the one before said it serves (its first IPC message; see
   * tellReady). A part that exits before
   * its first "ready" is a start-up failure (a taken port, a bad setting): that rejects, naming it.
   */
  async start(specs: readonly PartSpec[]): Promise<void> {
    for (const spec of specs) {
      const part: Part = { spec, child: undefined, startedAt: 0, served: false, restarts: 0, delay: FIRST_DELAY, timer: undefined }
      this.#parts.push(part)
      await new Promise<void>((resolve, reject) => {
        const child = this.#spawn(part)
        child.once('message', () => resolve())
        child.once('exit', (code, signal) => reject(new Error(`${spec.name} exited with ${signal ?? code} while starting; its error is above`)))
      })
    }
  }

  /** Stops restarting, then stops the parts in reverse order. */
  async stop(): Promise<void> {
    this.#stopping = true
    for (const part of [...this.#parts].reverse()) {
      clearTimeout(part.timer)
      await stopChild(part.child)
    }
  }

  #spawn(part: Part): ChildProcess {
    const env = { ...part.spec.env, SVC_RESTARTS: String(part.restarts) }
    const child = spawn(process.execPath, [ENTRY, ...part.spec.args], { env, detached: true, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    part.child = child
    part.startedAt = Date.now()
    child.once('exit', (code, signal) => {
      if (part.child === child) part.child = undefined
      // Only a part that once served is restarted: one that cannot start fails start() instead.
      if (!this.#stopping && part.served && part.timer === undefined) this.#restartLater(part, code, signal)
    })
    child.once('message', () => {
      part.served = true
      if (part.restarts > 0) this.#log.info(`${part.spec.name} serves again`, { restarts: part.restarts, pid: child.pid })
    })
    return child
  }

  #restartLater(part: Part, code: number | null, signal: NodeJS.Signals | null): void {
    if (Date.now() - part.startedAt >= STEADY_AFTER) part.delay = FIRST_DELAY
    const delay = part.delay
    part.delay = Math.min(MAX_DELAY, part.delay * 2)
    this.#log.warn(`${part.spec.name} exited unexpectedly: restarting`, { code, signal, restart: part.restarts + 1, in_ms: delay })
    part.timer = setTimeout(() => {
      part.timer = undefined
      if (this.#stopping) return
      part.restarts++
      this.#spawn(part)
    }, delay)
  }
}

/** SIGTERM, then SIGKILL after the grace period; resolves once the child is gone. */
function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill('SIGTERM')
  })
}
