/**
 * Real `svc worker` processes for fault tests, started as an operator would (the command, its
 * environment, /health on a port of its own) and killed as a crash would kill them. The worker
 * counts as started once its /health answers (its log may be quiet: LOG_LEVEL=warn). Every process
 * started here is killed with the test if it is still running; kill() and stop() wait for the exit.
 */
import { spawn } from 'node:child_process'
import { childEnv } from './env.js'
import { alive, childrenOf, freePort, SVC, textOf } from './processes.js'
import { waitFor } from './stack.js'

/** How long a killed worker's children get to notice and leave. */
const ORPHAN_GRACE_MS = 5000

export interface WorkerProcess {
  pid: number
  /** GET /health of this worker. */
  health: string
  output(): string
  /** Resolves with the exit code, or the signal that ended it. */
  exited: Promise<number | string>
  /**
   * SIGKILL, as a crash or the OOM killer would; resolves once the process is gone, with the
   * processes it had started then (children) and those of them still alive 5 s later (survivors:
   * a git clone would be one; tsx's esbuild service leaves once its parent's pipe closes).
   */
  kill(): Promise<{ children: Array<{ pid: number; args: string }>; survivors: Array<{ pid: number; args: string }> }>
  /** SIGTERM, as an orchestrator stops it; resolves with the exit code. */
  stop(): Promise<number | string>
}

export interface WorkerFleet {
  start(env: Record<string, string | undefined>): Promise<WorkerProcess>
  /** Every worker started, in order. */
  readonly started: readonly WorkerProcess[]
  /** Pids of started workers (and of processes they started) still alive. */
  leftovers(): number[]
}

/** Starts `svc worker` processes with env on top of base; all of them are killed with t if still running. */
export function workerFleet(t: { teardown(fn: () => unknown): void }, base: Record<string, string | undefined>): WorkerFleet {
  const started: WorkerProcess[] = []
  const descendants = new Set<number>()
  t.teardown(async () => {
    for (const worker of started) if (alive(worker.pid)) await worker.kill()
    for (const pid of descendants) if (alive(pid)) process.kill(pid, 'SIGKILL')
  })
  return {
    started,
    leftovers: () => [...started.map((w) => w.pid), ...descendants].filter(alive),
    async start(env) {
      const port = await freePort()
      const child = spawn(process.execPath, [SVC, 'worker'], { env: childEnv({ ...base, WORKER_HEALTH_PORT: String(port), ...env }), stdio: ['ignore', 'pipe', 'pipe'] })
      let output = ''
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
      const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code ?? -1)))
      const gone = (): boolean => child.exitCode !== null || child.signalCode !== null
      const health = `http://127.0.0.1:${port}/health`
      const worker: WorkerProcess = {
        pid: child.pid!,
        health,
        output: () => output,
        exited,
        async kill() {
          // Its children are noted first: once it is gone they can no longer be found by parent.
          const children = childrenOf(child.pid!)
          for (const c of children) descendants.add(c.pid)
          if (!gone()) child.kill('SIGKILL')
          await exited
          await waitFor(async () => !children.some((c) => alive(c.pid)), ORPHAN_GRACE_MS, 50).catch(() => undefined)
          return { children, survivors: children.filter((c) => alive(c.pid)) }
        },
        async stop() {
          if (!gone()) child.kill('SIGTERM')
          return exited
        },
      }
      started.push(worker)
      await waitFor(async () => (await textOf(health)).startsWith('status:') || gone(), 60_000, 50)
      if (gone()) throw new Error(`svc worker exited before it served /health (${String(await exited)}):\n${output}`)
      return worker
    },
  }
}
