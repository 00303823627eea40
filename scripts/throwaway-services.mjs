// Throwaway PostgreSQL and Redis for the test runner (scripts/test.mjs) and the investigation eval
// (bench/eval-investigate.ts): initdb in a temp folder (as the postgres user when run as root,
// since PostgreSQL refuses root) and a Redis on free ports. Each start registers its cleanup with
// the caller's register(fn) as soon as the server is spawned, so a server that never becomes ready
// is still stopped and its folder removed. A missing binary or pgvector throws a ProvisionError
// whose message names the line that installs it.
import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

export const INSTALL = 'sudo bash scripts/install-system-deps.sh'

/** A provisioning failure whose message says what to do; anything else thrown is a bug. */
export class ProvisionError extends Error {}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

function pgBinDir() {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))
  return versions[0] && join(root, versions[0], 'bin')
}

function asPostgres(cmd, args) {
  const root = process.getuid?.() === 0
  return root ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]
}

function postmasterPid(data) {
  try {
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0])
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

function tryKill(pid) {
  try {
    process.kill(pid, 'SIGKILL')
  } catch {
    // already gone
  }
}

/** Starts a throwaway PostgreSQL (with pgvector checked) and answers its URL. */
export async function startPostgres(register) {
  const bin = pgBinDir()
  if (!bin) throw new ProvisionError(`PostgreSQL server binaries are missing: ${INSTALL}`)
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-pg-'))
  chmodSync(dir, 0o777)
  const data = join(dir, 'data')
  const port = await freePort()
  const run = (cmd, args) => {
    const [c, a] = asPostgres(join(bin, cmd), args)
    execFileSync(c, a, { stdio: ['ignore', 'ignore', 'pipe'] })
  }
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8'])
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  const [c, a] = asPostgres(join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'])
  const server = spawn(c, a, { stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  server.stderr.on('data', (chunk) => (log = (log + chunk).slice(-4000)))
  register(async () => {
    if (server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve))
      // runuser does not pass SIGINT on, so signal the postmaster itself (fast shutdown) and
      // fall back to killing both after 10 s.
      const pid = postmasterPid(data)
      if (pid) process.kill(pid, 'SIGINT')
      else server.kill('SIGTERM')
      const timer = setTimeout(() => {
        if (pid) tryKill(pid)
        server.kill('SIGKILL')
      }, 10_000)
      await exited
      clearTimeout(timer)
    }
    rmSync(dir, { recursive: true, force: true })
  })
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  for (let i = 0; i < 200; i++) {
    const client = new pg.Client({ connectionString: url })
    try {
      await client.connect()
    } catch {
      // A client that never connected can hang in end(); drop it without waiting.
      client.end().catch(() => {})
      if (server.exitCode !== null) throw new ProvisionError(`throwaway PostgreSQL exited: ${log.trim().split('\n').slice(-3).join(' | ')}`)
      await new Promise((r) => setTimeout(r, 50))
      continue
    }
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS vector')
      await client.query('DROP EXTENSION vector')
    } catch {
      throw new ProvisionError(`pgvector is missing for the PostgreSQL in ${bin}: ${INSTALL}`)
    } finally {
      await client.end()
    }
    return url
  }
  throw new ProvisionError('throwaway PostgreSQL did not accept connections within 10 s')
}

/** Starts a throwaway Redis (no persistence) and answers its URL. */
export async function startRedis(register) {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' })
  } catch {
    throw new ProvisionError(`redis-server is missing: ${INSTALL}`)
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-redis-'))
  const port = await freePort()
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' })
  register(async () => {
    if (server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve))
      server.kill('SIGTERM')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  })
  const { Redis } = await import('ioredis')
  for (let i = 0; i < 200; i++) {
    const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
    client.on('error', () => {})
    try {
      await client.connect()
      await client.ping()
      client.disconnect()
      return `redis://127.0.0.1:${port}`
    } catch {
      client.disconnect()
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  throw new ProvisionError('throwaway Redis did not answer within 10 s')
}
