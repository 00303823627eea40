import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { lockDir } from '../../../shared/embedded/index.js'

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-lock-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const mine = `${process.pid}\n${hostname()}\n`

t.test('the lock file names this process and host and is removed on release', async (t) => {
  const dir = tempDir(t)
  const lock = await lockDir(join(dir, 'pg'))
  t.equal(lock.file, join(dir, 'pg', 'svc.lock'))
  t.equal(readFileSync(lock.file, 'utf8'), mine)
  lock.release()
  lock.release()
  t.notOk(existsSync(lock.file), 'released, and a second release is harmless')
})

t.test('a folder this process already holds is refused, with the hint the caller gave', async (t) => {
  const dir = tempDir(t)
  const lock = await lockDir(dir, 'set REDIS_URL to use an existing Redis')
  t.teardown(() => lock.release())
  await t.rejects(lockDir(dir, 'set REDIS_URL to use an existing Redis'), {
    name: 'DirLockedError',
    pid: process.pid,
    message: `Another svc process (pid ${process.pid}) holds ${dir}. Stop it, or set REDIS_URL to use an existing Redis. (If pid ${process.pid} is not svc, delete ${join(dir, 'svc.lock')}.)`,
  })
})

t.test('a lock naming this pid that this process never took is stale (a restarted container reuses pids)', async (t) => {
  const dir = tempDir(t)
  writeFileSync(join(dir, 'svc.lock'), `${process.pid}\n`)
  const lock = await lockDir(dir)
  t.teardown(() => lock.release())
  t.equal(readFileSync(lock.file, 'utf8'), mine)
})

t.test('a stale lock of a dead process is taken over and leaves no debris', async (t) => {
  const dir = tempDir(t)
  const { pid } = spawnSync(process.execPath, ['-e', ''])
  writeFileSync(join(dir, 'svc.lock'), `${pid}\n`)
  const lock = await lockDir(dir)
  t.equal(readFileSync(lock.file, 'utf8'), mine)
  lock.release()
  t.same(readdirSync(dir), [], 'no lock or set-aside file remains')
})

t.test('an old empty or garbled lock file is taken over', async (t) => {
  for (const content of ['', 'not a pid\n']) {
    const dir = tempDir(t)
    const file = join(dir, 'svc.lock')
    writeFileSync(file, content)
    const old = new Date(Date.now() - 60_000)
    utimesSync(file, old, old)
    const lock = await lockDir(dir)
    t.equal(readFileSync(file, 'utf8'), mine, `content ${JSON.stringify(content)}`)
    lock.release()
  }
})

t.test('a lock written on another host is respected, since its pid cannot be checked here', async (t) => {
  const dir = tempDir(t)
  writeFileSync(join(dir, 'svc.lock'), `${process.pid}\nother-host\n`)
  await t.rejects(lockDir(dir, 'set DATABASE_URL to use a shared PostgreSQL'), {
    name: 'DirLockedError',
    host: 'other-host',
    message: `Another svc process (pid ${process.pid} on host other-host) holds ${dir}. Stop it, or set DATABASE_URL to use a shared PostgreSQL. (If it no longer runs, delete ${join(dir, 'svc.lock')}.)`,
  })
})

t.test('release leaves alone a lock that another process has since taken', async (t) => {
  const dir = tempDir(t)
  const lock = await lockDir(dir)
  writeFileSync(lock.file, '1\n')
  lock.release()
  t.equal(readFileSync(lock.file, 'utf8'), '1\n')
})

t.test('a fresh empty lock file is being written: the owner it then names is respected', async (t) => {
  const dir = tempDir(t)
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' })
  t.teardown(() => stopChild(holder))
  const file = join(dir, 'svc.lock')
  writeFileSync(file, '')
  const attempt = lockDir(dir)
  setTimeout(() => writeFileSync(file, `${holder.pid}\n`), 100)
  await t.rejects(attempt, { name: 'DirLockedError', pid: holder.pid })
})

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGKILL')
  })
}
