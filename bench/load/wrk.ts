/**
 * wrk, the load generator of bench:ingest: the two loads it sends and the figures it prints.
 * - varied: requests cycle through many distinct events, each formatted once in wrk's init, so
 *   the per-request cost in wrk is a table lookup. Real traffic is varied, and an ingress that
 *   compresses what it queues must not be measured on one body repeated;
 * - repeated: one body, wrk's fastest path (a static request), as earlier runs measured.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface WrkResult {
  /** Requests per second over the run, answered 2xx or not. */
  rps: number
  requests: number
  non2xx: number
}

export interface Loads {
  varied: string
  repeated: string
  /** Removes the scripts and the bodies file. */
  remove(): void
}

/** Exits with the install line when wrk is missing. */
export function requireWrk(): void {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      console.error('wrk is missing: sudo apt-get install wrk')
      process.exit(2)
    }
  }
}

/**
 * A body's newlines in the bodies file, one body a line: a Sentry envelope is lines of JSON, and
 * JSON.stringify writes no raw control character, so this one never stands for itself.
 */
const NEWLINE = '\x1e'

/** Writes the Lua scripts of both loads: POSTs of bodies (JSON texts, or envelopes of JSON lines) with headers. */
export function writeLoads(bodies: readonly string[], headers: Record<string, string>): Loads {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'))
  const bodiesFile = join(dir, 'bodies.ndjson')
  writeFileSync(bodiesFile, bodies.map((body) => `${body.replaceAll('\n', NEWLINE)}\n`).join(''))
  const luaHeaders = `{ ${Object.entries(headers).map(([k, v]) => `[${JSON.stringify(k)}] = ${JSON.stringify(v)}`).join(', ')} }`
  const varied = join(dir, 'varied.lua')
  writeFileSync(
    varied,
    [
      'local requests = {}',
      'local i = 0',
      'init = function(args)',
      `  for line in io.lines(${JSON.stringify(bodiesFile)}) do`,
      `    requests[#requests + 1] = wrk.format("POST", wrk.path, ${luaHeaders}, (line:gsub("\\30", "\\n")))`,
      '  end',
      'end',
      'request = function()',
      '  i = i % #requests + 1',
      '  return requests[i]',
      'end',
    ].join('\n'),
  )
  const repeated = join(dir, 'repeated.lua')
  writeFileSync(repeated, [`wrk.method = "POST"`, `wrk.body = ${JSON.stringify(bodies[0])}`, ...Object.entries(headers).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)].join('\n'))
  return { varied, repeated, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/** The rate of 2xx answers: the run's rate scaled by the share of its answers that were 2xx. */
export function acceptedOf(w: WrkResult): number {
  return w.requests === 0 ? 0 : ((w.requests - w.non2xx) / w.requests) * w.rps
}

/** One wrk run: one thread, 64 connections, for seconds. */
export function runWrk(url: string, script: string, seconds: number): WrkResult {
  const out = execFileSync('wrk', ['-t1', '-c64', `-d${seconds}s`, '-s', script, url], { encoding: 'utf8' })
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0)
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0)
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0)
  return { rps, non2xx, requests }
}
