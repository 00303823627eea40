/** Running the real svc command as a user would: free ports, `svc up` as a child, and its children. */
import { execFileSync, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { childEnv } from './env.js'
import { waitFor } from './stack.js'

export const SVC = fileURLToPath(new URL('../../bin/svc.js', import.meta.url))

/** A TCP port free on 127.0.0.1 at the time of asking. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** The processes whose parent is pid, with their command lines (none: empty). */
export function childrenOf(pid: number): Array<{ pid: number; args: string }> {
  let out = ''
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' })
  } catch {
    return [] // ps exits 1 when there are none
  }
  return out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [pid, ...args] = line.trim().split(/\s+/)
      return { pid: Number(pid), args: args.join(' ') }
    })
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

export interface SvcUp {
  pid: number
  base: string
  health: string
  output(): string
  /** The pid of the supervised part whose command line ends in `svc.js <command>`. */
  part(command: string): number | undefined
  /** Ctrl-C; resolves with the exit code. */
  stop(): Promise<number | null>
}

/** Starts `svc up` with env (ports chosen here) and resolves once it printed its banner. */
export async function startSvcUp(t: { teardown(fn: () => unknown): void }, env: Record<string, string | undefined>): Promise<SvcUp> {
  const port = await freePort()
  const healthPort = await freePort()
  const child = spawn(process.execPath, [SVC, 'up'], {
    env: childEnv({ INGESTION_PORT: String(port), WORKER_HEALTH_PORT: String(healthPort), SVC_INGESTION_HOST: '127.0.0.1', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  t.teardown(() => {
    if (child.exitCode !== null) return
    for (const part of childrenOf(child.pid!)) if (/svc\.js/.test(part.args)) process.kill(part.pid, 'SIGKILL')
    child.kill('SIGKILL')
  })
  await waitFor(async () => output.includes('svc is running') || child.exitCode !== null, 60_000, 50)
  if (!output.includes('svc is running')) throw new Error(`svc up did not start:\n${output}`)
  return {
    pid: child.pid!,
    base: `http://127.0.0.1:${port}`,
    health: `http://127.0.0.1:${healthPort}/health`,
    output: () => output,
    part: (command) => childrenOf(child.pid!).find((p) => p.args.endsWith(`svc.js ${command}`))?.pid,
    stop: async () => {
      child.kill('SIGINT')
      return exited
    },
  }
}

export interface SvcProcess {
  pid: number
  output(): string
  /** Resolves with the exit code (or signal) once the process is gone. */
  exited: Promise<number | string>
}

/** Starts one `svc <command>` process with env and resolves once its log says it started (started: a pattern). */
export async function startSvc(t: { teardown(fn: () => unknown): void }, command: string, env: Record<string, string | undefined>, started: RegExp): Promise<SvcProcess> {
  const child = spawn(process.execPath, [SVC, command], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code ?? -1)))
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  await waitFor(async () => started.test(output) || child.exitCode !== null, 60_000, 50)
  if (!started.test(output)) throw new Error(`svc ${command} did not start:\n${output}`)
  return { pid: child.pid!, output: () => output, exited }
}

/** The body of a GET, or '' when nothing answers. */
export async function textOf(url: string): Promise<string> {
  try {
    return await (await fetch(url)).text()
  } catch {
    return ''
  }
}
