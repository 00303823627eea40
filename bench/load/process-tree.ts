/**
 * Read from /proc (Linux): a process's CPU time so far, and the resident memory of a process and
 * everything it started: each process's VmRSS (what top and the issue count: pages it maps that
 * are in memory, shared ones included) and its PSS (shared pages divided among the processes
 * sharing them, so a sum over the tree counts the node binary's pages once).
 */
import { readdirSync, readFileSync } from 'node:fs'

export interface ProcessMemory {
  pid: number
  /** What the process is, from its command line: `svc all-in-one`, `redis-server`, `esbuild service`. */
  name: string
  rssKb: number
  pssKb: number
}

/** pid and every process below it, parents first; one that exits while being read is left out. */
export function processTree(pid: number): ProcessMemory[] {
  const rows: ProcessMemory[] = []
  const visit = (id: number): void => {
    const row = readProcess(id)
    if (!row) return
    rows.push(row)
    for (const child of childrenOf(id)) visit(child)
  }
  visit(pid)
  return rows
}

/** Children are listed per thread: tsx's esbuild service is started by its loader thread. */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number))
  } catch {
    return []
  }
}

function readProcess(pid: number): ProcessMemory | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
    const program = readFileSync(`/proc/${pid}/comm`, 'utf8').trim()
    return { pid, name: nameOf(program, argv), rssKb: kb(status, 'VmRSS'), pssKb: kb(rollup, 'Pss') }
  } catch {
    return undefined
  }
}

function kb(text: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)
  return match ? Number(match[1]) : 0
}

/** program is the kernel's name for it (comm): redis-server rewrites its command line. */
function nameOf(program: string, argv: string[]): string {
  const entry = argv.findIndex((arg) => /(^|\/)svc(\.js)?$/.test(arg))
  if (entry >= 0) return `svc ${argv[entry + 1] ?? ''}`.trim()
  if (program === 'esbuild') return 'esbuild service (tsx)'
  // The watchdog shell that stops redis-server when svc up dies (shared/embedded/tied-child.ts).
  if (program === 'sh' && argv.includes('svc-watchdog')) return 'sh (redis-server watchdog)'
  return program
}

/** kB as MB with one decimal. */
export function mb(kilobytes: number): string {
  return (kilobytes / 1024).toFixed(1)
}

/** Clock ticks a second in /proc/<pid>/stat: 100 on every Linux build this runs on (USER_HZ). */
const TICKS_PER_SECOND = 100

/** CPU time a process has used so far, every thread's, user and system, in microseconds (/proc/<pid>/stat). */
export function cpuMicros(pid: number): number {
  // Fields after the command (which may hold spaces, so split after its closing parenthesis): utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND
}
