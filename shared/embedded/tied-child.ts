/**
 * A server process that dies with its parent, however the parent ends (stop(), exit, crash or
 * SIGKILL). A small /bin/sh watchdog starts the server and holds the read end of a pipe whose only
 * writer is this process; when that pipe closes, the watchdog sends the server SIGTERM. The group
 * is detached, so a terminal's Ctrl-C reaches only this process, which then stops the server last.
 */
import { spawn } from 'node:child_process'
import { SECOND } from '../time.js'

/** Prints the server's pid, then waits for it; a background reader TERMs it at EOF on fd 3. */
const WATCHDOG = [
  'exec 3<&0',
  '"$@" </dev/null >/dev/null 3<&- &',
  'server=$!',
  'echo "$server"',
  '{ read -r _ <&3; kill -TERM "$server" 2>/dev/null; } &',
  'watchdog=$!',
  'wait "$server"',
  'status=$?',
  'kill "$watchdog" 2>/dev/null',
  'exit "$status"',
].join('\n')

const OUTPUT_TAIL_BYTES = 4096

export interface TiedChild {
  /** pid of the server itself. */
  readonly pid: number
  /** Settles with the server's exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>
  hasExited(): boolean
  /** The last few KB the server wrote to stderr. */
  stderrTail(): string
  /** SIGTERM, then SIGKILL to the whole group if it has not exited within graceMs; resolves on exit. */
  stop(graceMs?: number): Promise<void>
}

/** Starts `file args…` tied to this process; rejects if the watchdog itself cannot start. */
export async function spawnTied(file: string, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<TiedChild> {
  const shell = spawn('/bin/sh', ['-c', WATCHDOG, 'svc-watchdog', file, ...args], { env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  shell.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-OUTPUT_TAIL_BYTES)
  })
  shell.stdin.on('error', () => {}) // EPIPE once the watchdog is gone
  let pid = 0 // unknown until the watchdog prints it
  // The pipe closing at exit is enough; this only makes the server go at once rather than on EOF.
  const onParentExit = (): void => {
    if (pid > 0) signal(pid, 'SIGTERM')
  }
  process.on('exit', onParentExit)
  let exitCode: number | null | undefined
  const exited = new Promise<number | null>((resolve) => {
    shell.once('exit', (code) => {
      exitCode = code
      process.off('exit', onParentExit)
      resolve(code)
    })
  })
  pid = await new Promise<number>((resolve, reject) => {
    let out = ''
    shell.once('error', (error) => {
      process.off('exit', onParentExit)
      reject(error)
    })
    shell.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      const line = out.split('\n', 2)
      if (line.length === 2) resolve(Number(line[0]))
    })
    void exited.then(() => reject(new Error(`${file} could not be started: ${stderr.trim() || 'the watchdog shell exited'}`)))
  })
  const hasExited = (): boolean => exitCode !== undefined
  return {
    pid,
    exited,
    hasExited,
    stderrTail: () => stderr,
    async stop(graceMs = 10 * SECOND) {
      if (hasExited()) return
      shell.stdin.end() // the watchdog sends SIGTERM
      const timer = setTimeout(() => signal(-shell.pid!, 'SIGKILL'), graceMs)
      await exited
      clearTimeout(timer)
    },
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch {
    // already gone
  }
}
