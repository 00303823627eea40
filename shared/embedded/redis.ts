/**
 * The embedded Redis: redis-server from PATH with append-only persistence in <dataDir>/redis,
 * reachable only through a unix socket (TCP disabled). It dies with this process: see tied-child.ts.
 * One that exits on its own is started again on the same socket and folder (so its AOF is read
 * back) after 1 s, doubling to 30 s while it keeps failing; clients reconnect by themselves.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { isAbsolute, join, resolve } from 'node:path'
// A referenced timer: waiting must keep the process alive (time.ts's sleep does not).
import { setTimeout as delay } from 'node:timers/promises'
import { promisify } from 'node:util'
import { MINUTE, SECOND } from '../time.js'
import type { Address } from './connection-gate.js'
import { lockDir } from './dir-lock.js'
import { chooseEndpoint, findFreePort } from './endpoint.js'
import { spawnTied, type TiedChild } from './tied-child.js'
import type { EmbeddedOptions, EmbeddedService } from './types.js'
import { createUndoStack } from './undo-stack.js'

/** The one-line error when redis-server is missing: it says how to install it or what to set instead. */
export const REDIS_MISSING = 'redis-server was not found on PATH. Install it: sudo apt-get install redis-server (Debian/Ubuntu) or brew install redis (macOS), or set REDIS_URL to an existing Redis.'

export interface EmbeddedRedisOptions extends EmbeddedOptions {
  /** Environment of redis-server, whose PATH it is found on (default: this process's). */
  env?: NodeJS.ProcessEnv
  /** How long to wait for the first PONG; loading a large AOF takes a while. */
  readyTimeoutMs?: number
}

const run = promisify(execFile)
const SOCKET_NAME = 'redis.sock'
const LOG_NAME = 'redis.log'

/**
 * Spawns redis-server and resolves once it answers PING, with `unix:///…/redis.sock`, or
 * `redis://127.0.0.1:<port>` when no socket path fits.
 */
export async function startEmbeddedRedis(options: EmbeddedRedisOptions): Promise<EmbeddedService> {
  const began = performance.now()
  const binary = await findRedisServer(options.env)
  if (!binary) throw new Error(REDIS_MISSING)
  const dir = resolve(options.dataDir, 'redis')
  const lock = await lockDir(dir, 'set REDIS_URL to use an existing Redis')
  const undo = createUndoStack()
  undo.push(() => lock.release())
  try {
    const endpoint = chooseEndpoint(dir, SOCKET_NAME, options.tmpDir)
    undo.push(() => endpoint.release())
    let url: string
    let listen: string[]
    let target: Address
    if (endpoint.kind === 'socket') {
      url = `unix://${endpoint.path}`
      listen = ['--port', '0', '--unixsocket', endpoint.path, '--unixsocketperm', '700']
      target = { path: endpoint.path }
    } else {
      const port = await findFreePort(endpoint.host)
      options.log.warn('embedded redis: no unix socket path fits, listening on loopback TCP instead', { dataDir: dir })
      url = `redis://${endpoint.host}:${port}`
      listen = ['--port', String(port), '--bind', endpoint.host]
      target = { host: endpoint.host, port }
    }
    const logFile = join(dir, LOG_NAME)
    const args = [...listen, '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '', '--logfile', logFile, '--daemonize', 'no']
    const readyMs = options.readyTimeoutMs ?? 30 * SECOND
    let child = await spawnTied(binary, args, options.env)
    undo.push(() => child.stop())
    let stopping = false
    undo.push(() => (stopping = true))
    let failures = 0
    const restartWhenItExits = (running: TiedChild, startedAt: number): void => {
      void running.exited.then(async (code) => {
        if (stopping) return
        failures = Date.now() - startedAt >= MINUTE ? 1 : failures + 1
        const inMs = Math.min(30 * SECOND, SECOND * 2 ** (failures - 1))
        options.log.error('embedded redis-server exited unexpectedly: restarting', { code, in_ms: inMs, detail: describeLog(running, logFile) })
        await delay(inMs)
        if (stopping) return
        try {
          child = await spawnTied(binary, args, options.env)
          restartWhenItExits(child, Date.now())
          await waitForPong(child, target, logFile, readyMs)
          options.log.info('embedded redis-server serves again', { pid: child.pid })
        } catch (error) {
          options.log.error('embedded redis-server could not be started again', { error })
        }
      })
    }
    restartWhenItExits(child, Date.now())
    await waitForPong(child, target, logFile, readyMs)
    options.log.debug('embedded redis ready', { url, pid: child.pid, ms: Math.round(performance.now() - began) })
    return { url, stop: () => undo.unwind() }
  } catch (error) {
    await undo.unwind().catch(() => {})
    throw error
  }
}

/** Absolute path of redis-server on the PATH of env (this process's when undefined), or undefined. */
async function findRedisServer(env: NodeJS.ProcessEnv | undefined): Promise<string | undefined> {
  try {
    const { stdout } = await run('/bin/sh', ['-c', 'command -v redis-server'], { env })
    const path = stdout.trim()
    return isAbsolute(path) ? path : undefined
  } catch {
    return undefined // command -v exits 1 when there is none
  }
}

async function waitForPong(child: TiedChild, target: Address, logFile: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last = 'no answer'
  while (!child.hasExited()) {
    last = await ping(target).catch((error: Error) => error.message)
    if (last === '+PONG') return
    if (Date.now() >= deadline) {
      throw new Error(`redis-server did not answer PING within ${timeoutMs / SECOND} s (last: ${last}). ${describeLog(child, logFile)}`)
    }
    await delay(20)
  }
  const code = await child.exited
  throw new Error(`redis-server exited with code ${code} before answering PING. ${describeLog(child, logFile)}`)
}

/** One PING on a fresh connection; resolves with the first reply line (-LOADING while the AOF loads). */
function ping(target: Address): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(target)
    let reply = ''
    socket.setTimeout(SECOND, () => socket.destroy(new Error('PING timed out')))
    socket.setEncoding('utf8')
    socket.once('error', reject)
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.on('data', (chunk: string) => {
      reply += chunk
      const end = reply.indexOf('\r\n')
      if (end === -1) return
      socket.destroy()
      resolve(reply.slice(0, end))
    })
    socket.once('close', () => reject(new Error('connection closed')))
  })
}

function describeLog(child: TiedChild, logFile: string): string {
  let tail = ''
  try {
    tail = readFileSync(logFile, 'utf8').trim().split('\n').slice(-8).join('\n')
  } catch {
    // never written
  }
  const stderr = child.stderrTail().trim()
  return [`Last lines of ${logFile}:`, tail || '(empty)', ...(stderr ? ['stderr:', stderr] : [])].join('\n')
}
