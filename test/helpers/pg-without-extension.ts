/**
 * A real PostgreSQL server whose installation lacks one extension, as an external database
 * without pgvector is: the machine's own server binary, copied into a folder that mirrors its
 * installation paths, where the share folder (and its extension folder) is the real one linked
 * file by file, minus that extension's files. PostgreSQL finds its share and library folders
 * relative to where its binary is, so this copy reads the pruned folder and answers that the
 * extension "is not available", while nothing of the machine's installation changes.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import pg from 'pg'
import { freePort } from './processes.js'
import { patience } from './patience.js'

interface Teardown {
  teardown(fn: () => unknown): void
}

/** The newest PostgreSQL server installed, as scripts/throwaway-services.mjs picks it. */
function pgBinDir(): string {
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres'))).sort((a, b) => Number(b) - Number(a)) : []
  if (!versions[0]) throw new Error('PostgreSQL server binaries are missing: sudo bash scripts/install-system-deps.sh')
  return join(root, versions[0], 'bin')
}

/** PostgreSQL refuses to run as root: run it as the postgres user then. */
function asPostgres(cmd: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]
}

/** Starts the server without the extension (files named extension.control, extension--*.sql); answers its URL. */
export async function startPostgresWithout(t: Teardown, extension: string): Promise<string> {
  const bin = pgBinDir()
  const [share, pkglib] = execFileSync(join(bin, 'pg_config'), ['--sharedir', '--pkglibdir'], { encoding: 'utf8' }).trim().split('\n')
  const root = mkdtempSync(join(tmpdir(), 'svc-test-pg-without-'))
  chmodSync(root, 0o777)
  const running: { server?: ChildProcess } = {}
  const data = join(root, 'data')
  t.teardown(async () => {
    const { server } = running
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve))
      const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0])
      process.kill(pid, 'SIGINT')
      await exited
    }
    rmSync(root, { recursive: true, force: true })
  })

  mkdirSync(join(root, bin), { recursive: true })
  copyFileSync(join(bin, 'postgres'), join(root, bin, 'postgres'))
  chmodSync(join(root, bin, 'postgres'), 0o755)
  mkdirSync(dirname(join(root, pkglib!)), { recursive: true })
  if (!existsSync(join(root, pkglib!))) symlinkSync(pkglib!, join(root, pkglib!))
  const extensions = join(share!, 'extension')
  mkdirSync(join(root, extensions), { recursive: true })
  for (const entry of readdirSync(share!)) if (entry !== 'extension') symlinkSync(join(share!, entry), join(root, share!, entry))
  const own = new RegExp(`^${extension}(\\.control$|--)`)
  for (const entry of readdirSync(extensions)) if (!own.test(entry)) symlinkSync(join(extensions, entry), join(root, extensions, entry))

  execFileSync(...asPostgres(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']), { stdio: ['ignore', 'ignore', 'pipe'] })
  const port = await freePort()
  const server = spawn(...asPostgres(join(root, bin, 'postgres'), ['-D', data, '-p', String(port), '-k', data, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off']), { stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  running.server = server
  server.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)))
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  for (const deadline = Date.now() + patience(20_000); Date.now() < deadline; ) {
    const client = new pg.Client({ connectionString: url })
    try {
      await client.connect()
      await client.end()
      return url
    } catch {
      client.end().catch(() => {})
      if (server.exitCode !== null) throw new Error(`PostgreSQL without ${extension} exited: ${log.trim()}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  throw new Error(`PostgreSQL without ${extension} did not accept connections within 20 s: ${log.trim()}`)
}
