/**
 * Servers of the fault suite's own, so a scenario can kill or restart them without touching the
 * test run's shared PostgreSQL and Redis: a redis-server with AOF on, as compose.yml runs it, and a
 * PostgreSQL cluster (initdb into a temporary folder, as the postgres user when run as root, since
 * PostgreSQL refuses root). Both listen on loopback only, on free ports, and are removed with the test.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import pg from 'pg'
import { freePort } from '../helpers/processes.js'
import { waitFor } from '../helpers/stack.js'

interface Teardown {
  teardown(fn: () => unknown): void
}

export interface OwnRedis {
  url: string
  /** kill -9: no shutdown, no final AOF rewrite. */
  kill(): Promise<void>
  /** A clean stop (SIGTERM: Redis flushes the AOF and exits). */
  stop(): Promise<void>
  /** Starts it again on the same port and folder; resolves once it answers with the AOF loaded. */
  start(): Promise<void>
}

/** A redis-server with appendonly yes and appendfsync everysec, as the stack runs it. */
export async function startOwnRedis(t: Teardown): Promise<OwnRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-fault-redis-'))
  const port = await freePort()
  const url = `redis://127.0.0.1:${port}`
  let server: ChildProcess | undefined
  const exited = (child: ChildProcess): Promise<void> => (child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve())))
  const own: OwnRedis = {
    url,
    async start() {
      server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', ''], { stdio: 'ignore' })
      await waitFor(() => answers(url), 10_000, 50)
    },
    async kill() {
      const child = server!
      child.kill('SIGKILL')
      await exited(child)
    },
    async stop() {
      const child = server!
      child.kill('SIGTERM')
      await exited(child)
    },
  }
  t.teardown(async () => {
    if (server && server.exitCode === null && server.signalCode === null) await own.kill()
    rmSync(dir, { recursive: true, force: true })
  })
  await own.start()
  return own
}

async function answers(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
  client.on('error', () => {})
  try {
    await client.connect()
    // A server still loading its AOF answers LOADING: not up yet.
    return (await client.ping()) === 'PONG'
  } catch {
    return false
  } finally {
    client.disconnect()
  }
}

export interface OwnPostgres {
  /** The cluster's postgres database (with pgvector available, as the stack needs). */
  url: string
  /** pg_ctl stop -m fast: every session is terminated and the server shuts down. */
  stop(): void
  /** Starts it again; resolves once it accepts connections. */
  start(): Promise<void>
}

/** A throwaway PostgreSQL cluster on a free loopback port. */
export async function startOwnPostgres(t: Teardown): Promise<OwnPostgres> {
  const bin = pgBinDir()
  const dir = mkdtempSync(join(tmpdir(), 'svc-fault-pg-'))
  chmodSync(dir, 0o777)
  const data = join(dir, 'data')
  const port = await freePort()
  const ctl = (args: string[]): void => {
    const [command, argv] = asPostgres(join(bin, 'pg_ctl'), args)
    execFileSync(command, argv, { stdio: ['ignore', 'ignore', 'pipe'] })
  }
  const [initdb, initArgs] = asPostgres(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8'])
  execFileSync(initdb, initArgs, { stdio: ['ignore', 'ignore', 'pipe'] })
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`
  t.teardown(() => {
    try {
      ctl(['stop', '-D', data, '-m', 'immediate', '-w'])
    } catch {
      // not running
    }
    rmSync(dir, { recursive: true, force: true })
  })
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  const own: OwnPostgres = {
    url,
    stop: () => ctl(['stop', '-D', data, '-m', 'fast', '-w']),
    async start() {
      ctl(['start', '-D', data, '-o', options, '-l', join(dir, 'log'), '-w'])
      await waitFor(() => accepts(url), 10_000, 50)
    },
  }
  await own.start()
  return own
}

async function accepts(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url })
  try {
    await client.connect()
    await client.query('SELECT 1')
    return true
  } catch {
    return false
  } finally {
    client.end().catch(() => {})
  }
}

function pgBinDir(): string {
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : []
  if (!versions[0]) throw new Error('PostgreSQL server binaries are missing: sudo bash scripts/install-system-deps.sh')
  return join(root, versions[0], 'bin')
}

function asPostgres(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]
}
