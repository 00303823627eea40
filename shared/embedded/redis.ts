/**
 * The embedded Redis: redis-server from PATH with append-only persistence in <dataDir>/redis,
 * reachable only through a unix socket. It dies with its parent (stop() or the parent's exit).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import type { Logger } from '../log.js'
import { sleep } from '../time.js'
import type { EmbeddedService } from './postgres.js'
import { socketDir } from './socket-path.js'

export const REDIS_MISSING = 'redis-server was not found on PATH. Install it: sudo apt-get install redis-server (Debian/Ubuntu) or brew install redis (macOS), or set REDIS_URL to an existing Redis.'

/** Spawns redis-server and resolves once it answers PING. */
export async function startEmbeddedRedis(options: { dataDir: string; log: Logger; env?: NodeJS.ProcessEnv }): Promise<EmbeddedService> {
  const dir = join(options.dataDir, 'redis')
  mkdirSync(dir, { recursive: true })
  const sock = join(socketDir(dir, 'redis.sock'), 'redis.sock')
  rmSync(sock, { force: true })
  const logFile = join(dir, 'redis.log')
  const args = ['--port', '0', '--unixsocket', sock, '--unixsocketperm', '700', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '', '--logfile', logFile, '--daemonize', 'no']
  const child = spawn('redis-server', args, { stdio: 'ignore', env: options.env ?? process.env })
  const spawned = await new Promise<Error | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined))
    child.once('error', (error) => resolve(error))
  })
  if (spawned) throw (spawned as NodeJS.ErrnoException).code === 'ENOENT' ? new Error(REDIS_MISSING) : spawned
  const killOnExit = (): void => {
    child.kill('SIGTERM')
  }
  process.once('exit', killOnExit)
  const url = `unix://${sock}`
  await waitReady(child, sock, logFile)
  options.log.debug('embedded redis ready', { socket: sock })
  return {
    url,
    async stop() {
      process.removeListener('exit', killOnExit)
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM') // redis-server flushes the AOF and exits on SIGTERM
      await exited
    },
  }
}

async function waitReady(child: ChildProcess, sock: string, logFile: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break
    const probe = new Redis({ path: sock, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
    probe.on('error', () => {})
    try {
      await probe.connect()
      if ((await probe.ping()) === 'PONG') return
    } catch {
      // not up yet
    } finally {
      probe.disconnect()
    }
    await sleep(50)
  }
  child.kill('SIGKILL')
  let tail = ''
  try {
    tail = readFileSync(logFile, 'utf8').trim().split('\n').slice(-5).join(' | ')
  } catch {
    // no log written
  }
  throw new Error(`redis-server did not become ready within 10 s. Its log says: ${tail || '(nothing)'}`)
}
