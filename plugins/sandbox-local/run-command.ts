/**
 * Runs one launch to the end and says what happened: its exit code and capped output, or that it
 * timed out, flooded its output, was aborted, or never started (an infrastructure error). Every
 * ending kills the whole process group, so nothing the command started outlives it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import type { CommandResult, RunOptions } from '../../shared/plugins/sandbox-types.js'
import { CappedOutput } from './capped-output.js'
import { STARTED_MARKER, type Launch } from './launch.js'

/** Output kept and allowed when the caller names no cap. */
export const DEFAULT_OUTPUT_CAP = 1024 * 1024
// What bubblewrap or the wrapper say before the command starts is a line or two; more is noise.
const CONTROL_CAP = 16 * 1024
// After the process exits, how long its pipes may stay open (a straggler holding them) before we
// stop reading: every straggler was sent SIGKILL, so this only bounds a kernel's slowness.
const DRAIN_MS = 2000

/** Spawns launch and resolves with its result; rejects with the signal's reason when aborted. */
export function runCommand(launch: Launch, options: RunOptions): Promise<CommandResult> {
  const { signal } = options
  if (signal?.aborted) return Promise.reject(signal.reason)
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const output = new CappedOutput(options.outputCapBytes ?? DEFAULT_OUTPUT_CAP)
    let control = ''
    let timedOut = false
    let aborted = false
    let exit: { code: number | null } | undefined
    let spawnError: Error | undefined
    let done = false
    let drain: NodeJS.Timeout | undefined

    let child: ChildProcess
    try {
      child = spawn(launch.file, launch.args, {
        cwd: launch.cwd,
        env: launch.env,
        // Set only as root: the command (and bubblewrap, which must not run as root) gets the
        // unprivileged user, and node drops supplementary groups with it.
        ...(launch.user === undefined ? {} : { uid: launch.user.uid, gid: launch.user.gid }),
        // Its own process group, so one kill reaches everything it started.
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    } catch (error) {
      resolve(result(null, `could not start ${launch.file}: ${(error as Error).message}`))
      return
    }

    const kill = (): void => killGroup(child)
    const timer = setTimeout(() => {
      timedOut = true
      kill()
    }, options.timeoutMs)
    const onAbort = (): void => {
      aborted = true
      kill()
    }
    signal?.addEventListener('abort', onAbort, { once: true })

    child.stdout!.on('data', (chunk: Buffer) => {
      if (!output.push(chunk)) kill()
    })
    child.stderr!.on('data', (chunk: Buffer) => {
      if (control.length < CONTROL_CAP) control += chunk.toString('utf8')
    })
    child.once('error', (error) => {
      spawnError = error
      // A spawn that failed has no process to wait for.
      if (child.pid === undefined) finish()
    })
    child.once('exit', (code) => {
      exit = { code }
      // Whatever the command left running in its group goes with it.
      kill()
      drain = setTimeout(() => {
        child.stdout?.destroy()
        child.stderr?.destroy()
        finish()
      }, DRAIN_MS)
    })
    child.once('close', finish)

    function finish(): void {
      if (done) return
      done = true
      clearTimeout(timer)
      clearTimeout(drain)
      signal?.removeEventListener('abort', onAbort)
      if (aborted) {
        reject(signal!.reason)
        return
      }
      const infra = infraError()
      // The command's own exit code, or none: killed, or never started (bubblewrap's status is not the command's).
      resolve(result(timedOut || output.over || infra !== undefined ? null : (exit?.code ?? null), infra))
    }

    /** Why the sandbox failed, or undefined when the command started. */
    function infraError(): string | undefined {
      if (spawnError !== undefined) return `could not start ${launch.file}: ${spawnError.message}`
      // The marker is the wrapper's last word before exec: without it, bubblewrap or prlimit failed.
      if (control.includes(`${STARTED_MARKER}\n`)) return undefined
      const said = control.trim().slice(0, 2000)
      if (timedOut) return `the sandbox did not start the command within ${options.timeoutMs} ms${said ? `: ${said}` : ''}`
      return said || `the sandbox exited with status ${exit?.code ?? 'unknown'} before starting the command`
    }

    function result(exitCode: number | null, infra: string | undefined): CommandResult {
      return {
        exitCode,
        timedOut,
        outputCapped: output.over,
        output: output.text(),
        durationMs: Math.round(performance.now() - started),
        ...(infra === undefined ? {} : { infraError: infra }),
      }
    }
  })
}

/** SIGKILL to the child's whole process group; a group already gone is fine. */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, 'SIGKILL')
  } catch {
    // ESRCH: nothing left to kill.
  }
}
