#!/usr/bin/env node
// The README's test command. Uses TEST_DATABASE_URL / TEST_REDIS_URL when given; otherwise starts
// a throwaway PostgreSQL (initdb in a temp folder, as the postgres user when run as root, since
// PostgreSQL refuses root) and a throwaway Redis on free ports, runs tap, and removes them. A
// missing binary or pgvector stops it at once with the line that installs it; nothing is skipped.
// The last line is "N passed, N failed".
import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

const INSTALL = 'sudo bash scripts/install-system-deps.sh'
const cleanups = []
let cleaned = false

async function cleanup() {
  if (cleaned) return
  cleaned = true
  for (const fn of cleanups.reverse()) {
    try {
      await fn()
    } catch (error) {
      console.error(`test: cleanup step failed: ${error.message}`)
    }
  }
}

function die(message) {
  console.error(`test: ${message}`)
  console.log('0 passed, 1 failed')
  return cleanup().then(() => process.exit(1))
}

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

async function startPostgres() {
  const bin = pgBinDir()
  if (!bin) return die(`PostgreSQL server binaries are missing: ${INSTALL}`)
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-pg-'))
  chmodSync(dir, 0o777)
  const data = join(dir, 'data')
  const port = await freePort()
  const run = (cmd, args) => {
    const [c, a] = asPostgres(join(bin, cmd), args)
    execFileSync(c, a, { stdio: ['ignore', 'ignore', 'pipe'] })
  }
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8'])
  const [c, a] = asPostgres(join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'])
  const server = spawn(c, a, { stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  server.stderr.on('data', (chunk) => (log = (log + chunk).slice(-4000)))
  cleanups.push(async () => {
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
      try {
        await client.query('CREATE EXTENSION IF NOT EXISTS vector')
        await client.query('DROP EXTENSION vector')
      } catch {
        await client.end()
        return die(`pgvector is missing for the PostgreSQL in ${bin}: ${INSTALL}`)
      }
      await client.end()
      return url
    } catch {
      // A client that never connected can hang in end(); drop it without waiting.
      client.end().catch(() => {})
      if (server.exitCode !== null) return die(`throwaway PostgreSQL exited: ${log.trim().split('\n').slice(-3).join(' | ')}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  return die('throwaway PostgreSQL did not accept connections within 10 s')
}

async function startRedis() {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' })
  } catch {
    return die(`redis-server is missing: ${INSTALL}`)
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-redis-'))
  const port = await freePort()
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' })
  cleanups.push(async () => {
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
  return die('throwaway Redis did not answer within 10 s')
}

/** Programs tests run as a user would (browsers, and curl and jq for the README's walk-through). */
function checkTools() {
  const tools = [['/usr/bin/chromium'], ['/usr/bin/firefox-esr'], ['curl', '--version'], ['jq', '--version']]
  for (const [command, ...args] of tools) {
    try {
      execFileSync(command, args.length ? args : ['--version'], { stdio: 'ignore' })
    } catch (error) {
      if (error.code === 'ENOENT') return die(`${command} is missing: ${INSTALL}`)
    }
  }
}

async function main() {
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => cleanup().then(() => process.exit(130)))
  await checkTools()
  const env = { ...process.env }
  env.TEST_DATABASE_URL ||= await startPostgres()
  env.TEST_REDIS_URL ||= await startRedis()
  // The SDK's browser tests load what ships: build sdk/dist once, before test files run in parallel.
  try {
    execFileSync(process.execPath, ['sdk/build.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] })
  } catch {
    return die('building the SDK (node sdk/build.mjs) failed; see the error above')
  }
  const args = process.argv.slice(2)
  const tap = spawn('npx', ['tap', '--reporter=tap', ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] })
  let tail = ''
  tap.stdout.on('data', (chunk) => {
    process.stdout.write(chunk)
    tail = (tail + chunk).slice(-2000)
  })
  const code = await new Promise((resolve) => tap.once('exit', (c) => resolve(c ?? 1)))
  await cleanup()
  // tap's closing summary: "# { total: 12, pass: 11, fail: 1, skip: 0 }" (absent keys are zero).
  const summary = /#\s*\{([^}]*)\}\s*(?:#[^\n]*\s*)*$/.exec(tail)?.[1] ?? ''
  const count = (key) => Number(new RegExp(`\\b${key}:\\s*(\\d+)`).exec(summary)?.[1] ?? 0)
  const total = count('total')
  const passed = count('pass')
  const failed = Math.max(count('fail'), code === 0 ? 0 : total - passed || 1)
  const skipped = count('skip') + count('todo')
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
  process.exit(code === 0 && total > 0 && failed === 0 && skipped === 0 ? 0 : 1)
}

main().catch((error) => die(error.stack ?? String(error)))
