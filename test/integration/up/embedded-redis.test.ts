import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { REDIS_MISSING, startEmbeddedRedis } from '../../../shared/embedded/index.js'
import { createLogger } from '../../../shared/log.js'
import { createRedis } from '../../../shared/redis.js'
import { childEnv } from '../../helpers/env.js'
import { patience } from '../../helpers/patience.js'

const log = createLogger('silent')

function tempDir(t: Test, prefix = 'svc-embedded-redis-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Command lines of live processes that name the folder (pgrep exits 1 when there are none). */
function processesMentioning(dir: string): string[] {
  try {
    return execFileSync('pgrep', ['-af', dir], { encoding: 'utf8' }).trim().split('\n').filter(Boolean)
  } catch {
    return []
  }
}

/** A folder holding one executable script called redis-server. */
function fakeRedisServer(t: Test, script: string): string {
  const bin = tempDir(t, 'svc-fake-bin-')
  writeFileSync(join(bin, 'redis-server'), script)
  chmodSync(join(bin, 'redis-server'), 0o755)
  return bin
}

async function roundTrip(url: string, key: string, value?: string): Promise<string | null> {
  const redis = createRedis(url, { maxRetriesPerRequest: 1 })
  try {
    if (value !== undefined) await redis.set(key, value)
    return await redis.get(key)
  } finally {
    redis.disconnect()
  }
}

t.test('a key written before a stop is read back after a fresh start (AOF)', async (t) => {
  const dataDir = tempDir(t)
  const first = await startEmbeddedRedis({ dataDir, log })
  t.equal(first.url, `unix://${join(dataDir, 'redis', 'redis.sock')}`)
  t.equal(await roundTrip(first.url, 'greeting', 'hello'), 'hello')
  await first.stop()
  t.same(processesMentioning(dataDir), [], 'stop leaves no redis-server behind')
  t.ok(readdirSync(join(dataDir, 'redis')).includes('appendonlydir'), 'the AOF lives in the data folder')

  const second = await startEmbeddedRedis({ dataDir, log })
  t.teardown(() => second.stop())
  t.equal(await roundTrip(second.url, 'greeting'), 'hello')
})

t.test('without redis-server on PATH it says in one line how to install it', async (t) => {
  const emptyBin = tempDir(t, 'svc-empty-bin-')
  const dataDir = tempDir(t)
  const error = await startEmbeddedRedis({ dataDir, log, env: { PATH: emptyBin } }).then(
    () => undefined,
    (e: unknown) => e as Error,
  )
  t.equal(error?.message, REDIS_MISSING)
  t.equal(REDIS_MISSING, 'redis-server was not found on PATH. Install it: sudo apt-get install redis-server (Debian/Ubuntu) or brew install redis (macOS), or set REDIS_URL to an existing Redis.')
  t.notMatch(REDIS_MISSING, /\n/, 'one line')
})

t.test('a second Redis on a folder in use is refused with the lock message', async (t) => {
  const dataDir = tempDir(t)
  const redis = await startEmbeddedRedis({ dataDir, log })
  t.teardown(() => redis.stop())
  await t.rejects(startEmbeddedRedis({ dataDir, log }), { name: 'DirLockedError', message: /holds .*redis\. Stop it, or set REDIS_URL/ })
  t.equal(await roundTrip(redis.url, 'still', 'up'), 'up', 'the running one keeps its socket')
})

t.test('redis-server dies with a parent that is killed outright, flushing its AOF', async (t) => {
  const dataDir = tempDir(t)
  const entry = new URL('../../../shared/embedded/index.ts', import.meta.url).href
  const script = `const { startEmbeddedRedis } = await import(process.argv[1]);
const { createLogger } = await import(process.argv[2]);
const redis = await startEmbeddedRedis({ dataDir: process.argv[3], log: createLogger('silent') });
console.log(redis.url);
setInterval(() => {}, 1000);`
  const logUrl = new URL('../../../shared/log.ts', import.meta.url).href
  const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, entry, logUrl, dataDir], { env: childEnv(), stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = new Promise((resolve) => parent.once('exit', resolve))
  t.teardown(async () => {
    parent.kill('SIGKILL')
    await exited
  })
  const url = await new Promise<string>((resolve) => parent.stdout.setEncoding('utf8').once('data', (line: string) => resolve(line.trim())))
  t.equal(await roundTrip(url, 'survivor', 'written'), 'written')
  t.ok(processesMentioning(dataDir).some((line) => line.includes('redis-server')), 'redis-server runs')
  parent.kill('SIGKILL')
  await exited
  const deadline = Date.now() + patience(5000)
  while (processesMentioning(dataDir).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25))
  t.same(processesMentioning(dataDir), [], 'nothing outlives the parent')

  const again = await startEmbeddedRedis({ dataDir, log })
  t.teardown(() => again.stop())
  t.equal(await roundTrip(again.url, 'survivor'), 'written', 'the stale lock is taken over and the data kept')
})

t.test('a redis-server that exits at once is reported with what it printed', async (t) => {
  const bin = fakeRedisServer(t, '#!/bin/sh\necho "FATAL: cannot open the AOF" >&2\nexit 3\n')
  const dataDir = tempDir(t)
  const began = Date.now()
  await t.rejects(startEmbeddedRedis({ dataDir, log, env: { PATH: bin } }), { message: /^redis-server exited with code 3 before answering PING\.[^]*FATAL: cannot open the AOF/ })
  t.ok(Date.now() - began < 5000, 'without waiting for the timeout')
  t.same(readdirSync(join(dataDir, 'redis')), [], 'the lock is released')
})

t.test('a redis-server that never answers times out with its log and is stopped', async (t) => {
  const bin = fakeRedisServer(t, `#!${process.execPath}\nsetInterval(() => {}, 1000)\n`)
  const dataDir = tempDir(t)
  await t.rejects(startEmbeddedRedis({ dataDir, log, env: { PATH: bin }, readyTimeoutMs: 300 }), { message: /^redis-server did not answer PING within 0\.3 s \(last: .*\)\. Last lines of .*redis\.log:/ })
  t.same(processesMentioning(dataDir), [], 'the hung server was killed')
})

t.test('a data folder too deep for a socket path gets a private temp socket, or loopback TCP', async (t) => {
  const base = tempDir(t)
  const dataDir = join(base, 'a'.repeat(60), 'b'.repeat(60))
  const tmpRoot = tempDir(t, 'svc-sock-')
  const viaTemp = await startEmbeddedRedis({ dataDir, log, tmpDir: tmpRoot })
  t.match(viaTemp.url, new RegExp(`^unix://${tmpRoot}/svc-\\w{6}/redis\\.sock$`))
  t.equal(await roundTrip(viaTemp.url, 'deep', 'yes'), 'yes')
  await viaTemp.stop()
  t.same(readdirSync(tmpRoot), [], 'the private socket folder is gone')

  const viaTcp = await startEmbeddedRedis({ dataDir, log, tmpDir: dataDir })
  t.teardown(() => viaTcp.stop())
  t.match(viaTcp.url, /^redis:\/\/127\.0\.0\.1:\d+$/)
  t.equal(await roundTrip(viaTcp.url, 'deep'), 'yes', 'same data either way')
})

t.test('a redis-server that dies on its own is logged and started again with its data, and clients reconnect', async (t) => {
  const dataDir = tempDir(t)
  const lines: string[] = []
  const redis = await startEmbeddedRedis({ dataDir, log: createLogger('info', {}, (line) => lines.push(line)) })
  t.teardown(() => redis.stop())
  const client = createRedis(redis.url)
  t.teardown(() => client.disconnect())
  await client.set('kept', 'across the crash')
  const pidOf = (): number => Number(execFileSync('pgrep', ['-f', `redis-server unixsocket:${dataDir}`], { encoding: 'utf8' }).trim())
  const first = pidOf()
  process.kill(first, 'SIGKILL')
  const deadline = Date.now() + patience(15_000)
  while (!lines.some((line) => line.includes('serves again')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25))
  t.match(JSON.parse(lines.find((line) => line.includes('exited unexpectedly')) ?? '{}'), { level: 'error', msg: 'embedded redis-server exited unexpectedly: restarting', in_ms: 1000 })
  t.ok(lines.some((line) => line.includes('embedded redis-server serves again')), 'and says when it serves again')
  t.not(pidOf(), first, 'a new redis-server process')
  t.equal(await client.get('kept'), 'across the crash', 'the client reconnected and the AOF kept the data')
})
