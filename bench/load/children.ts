/** The benchmark's servers as child processes, so the load generator never shares their event loop. */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const SVC = fileURLToPath(new URL('../../bin/svc.js', import.meta.url))

/** Resolves once something answers at url (30 s at most). */
export async function waitHttp(url: string, init?: RequestInit): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      await fetch(url, init)
      return
    } catch {
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  throw new Error(`${url} did not come up`)
}

/** Starts node with args and env; its errors go to this process's stderr. */
export function child(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] })
}

/**
 * Starts `svc ingress` and resolves once every thread listens. /health answers as soon as the
 * first thread does, and wrk's keep-alive connections stay where they first land: loading at
 * that moment measured one thread, whatever SVC_INGRESS_THREADS said.
 */
export async function startIngressChild(env: Record<string, string>): Promise<ChildProcess> {
  // BENCH_CPU_PROF=<folder>: V8's CPU profile of every ingress thread, written there when it stops.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : []
  const proc = spawn(process.execPath, [...profile, SVC, 'ingress'], { env: { ...process.env, ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  await new Promise<void>((resolve, reject) => {
    proc.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString()
      for (const line of chunk.toString().split('\n')) if (/"level":"(warn|error)"/.test(line)) process.stderr.write(`${line}\n`)
      if (/"msg":"ingress (threads )?listening"/.test(log) && (env.SVC_INGRESS_THREADS === '1' || log.includes('ingress threads listening'))) resolve()
    })
    proc.once('exit', (code) => reject(new Error(`svc ingress exited with ${code} before listening`)))
  })
  proc.stderr!.resume()
  return proc
}

/** SIGTERM, then SIGKILL after 15 s: a server that does not stop must not hang the benchmark. */
export async function stopChild(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      console.error(`bench: ${proc.spawnargs.slice(-1)[0]} ignored SIGTERM for 15 s; killed`)
      proc.kill('SIGKILL')
    }, 15_000)
    proc.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    proc.kill('SIGTERM')
  })
}
