/**
 * The embedded database: PGlite with the pgvector extension available, persisted in <dataDir>/pg,
 * served to node-postgres over a unix socket so nothing listens on TCP. PGlite is one backend, so
 * clients get it one connection at a time (see connection-gate.ts): callers use a pool of max 1,
 * and any other client waits until that connection closes.
 */
import { execFile } from 'node:child_process'
import { chmodSync, existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { setFlagsFromString } from 'node:v8'
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite-pgvector'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'
import { startConnectionGate, type Address } from './connection-gate.js'
import { lockDir } from './dir-lock.js'
import { chooseEndpoint, type Endpoint } from './endpoint.js'
import type { DbOptions } from '../db/index.js'
import type { EmbeddedOptions, EmbeddedService } from './types.js'
import { createUndoStack } from './undo-stack.js'

export interface EmbeddedPostgres extends EmbeddedService {
  /** The pool settings every client of it needs: pass them to createDb. */
  readonly pool: Required<Pick<DbOptions, 'max' | 'connectTimeoutMs'>>
}

/**
 * One connection, since PGlite's socket server hangs when connections interleave transactions; and
 * no connect timeout, since a query waits its turn for it however long a batch's transaction (or
 * another client's pool) holds it: waiting, not an outage.
 */
const POOL = Object.freeze({ max: 1, connectTimeoutMs: 0 })

/**
 * PostgreSQL's shared buffers: its default of 128 MB is resident from the start in PGlite (its
 * WebAssembly memory), more than the rest of the service together. A development database reads
 * what is not cached from the operating system's file cache, which holds it anyway.
 */
const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB']

/** Creates a database in an empty folder, in a process of its own (see the script). */
const INIT_SCRIPT = fileURLToPath(new URL('./pglite-init.mjs', import.meta.url))

const run = promisify(execFile)

/** node-postgres connects to `<host folder>/.s.PGSQL.<port>`, port 5432 by default. */
const SOCKET_NAME = '.s.PGSQL.5432'
/** Where PGlite's own socket server listens; only the gate connects to it. */
const INNER_SOCKET_NAME = 'pglite.sock'

/**
 * Opens (creating if needed) the embedded database and serves it. The URL is
 * `postgres://postgres@<socket folder, percent-encoded>/postgres`, which node-postgres and
 * MikroORM both read as a unix socket folder, or `postgres://postgres@127.0.0.1:<port>/postgres`
 * when no socket path fits.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const began = performance.now()
  const root = resolve(options.dataDir, 'pg')
  const lock = await lockDir(root, 'set DATABASE_URL to use a shared PostgreSQL')
  const undo = createUndoStack()
  undo.push(() => lock.release())
  try {
    restrict(root, 0o700, options) // PGlite has no authentication: only this user may reach its sockets
    const dataDir = join(root, 'data')
    if (!existsSync(join(dataDir, 'PG_VERSION'))) await createDatabase(dataDir)
    // Liftoff, V8's baseline WebAssembly compiler, alone: optimising PostgreSQL's 9 MB of
    // WebAssembly in the background held about 35 MB for good, and queries measured no slower.
    // Process-wide, but PGlite is the only WebAssembly here; a V8 without the flag says so and goes on.
    setFlagsFromString('--liftoff-only')
    const db = await PGlite.create({ dataDir, extensions: { vector, pg_trgm }, startParams: START_PARAMS })
    undo.push(() => db.close())

    const inner = chooseEndpoint(root, INNER_SOCKET_NAME, options.tmpDir)
    undo.push(() => inner.release())
    // The gate already admits one client at a time; a limit of two keeps a reconnect from being
    // refused while PGlite's server is still closing the previous socket.
    const server = new PGLiteSocketServer({ db, ...listenAddress(inner), maxConnections: 2 })
    await server.start()
    undo.push(() => server.stop())
    if (inner.kind === 'socket') restrict(inner.path, 0o600, options)
    const innerAddress: Address = inner.kind === 'socket' ? { path: inner.path } : parseHostPort(server.getServerConn())

    const front = chooseEndpoint(root, SOCKET_NAME, options.tmpDir)
    undo.push(() => front.release())
    const gate = await startConnectionGate(listenAddress(front), innerAddress, () => server.getStats().activeConnections === 0)
    undo.push(() => gate.close())

    let url: string
    if (front.kind === 'socket') {
      restrict(front.path, 0o600, options)
      url = `postgres://postgres@${encodeURIComponent(dirname(front.path))}/postgres`
    } else {
      options.log.warn('embedded postgres: no unix socket path fits, listening on loopback TCP instead (any local user can reach it)', { dataDir: root })
      url = `postgres://postgres@${front.host}:${gate.port}/postgres`
    }
    options.log.debug('embedded postgres ready', { url, ms: Math.round(performance.now() - began) })
    return { url, pool: POOL, stop: () => undo.unwind() }
  } catch (error) {
    await undo.unwind().catch(() => {})
    throw error
  }
}

async function createDatabase(dataDir: string): Promise<void> {
  try {
    await run(process.execPath, [INIT_SCRIPT, dataDir, JSON.stringify(START_PARAMS)])
  } catch (error) {
    // The script's uncaught error: its first line says what went wrong, the stack below it does not.
    const lines = String((error as { stderr?: string }).stderr ?? '').split('\n')
    const reason = lines.find((line) => /\b\w*Error\b/.test(line))?.trim() ?? (error as Error).message
    throw new Error(`embedded postgres: creating the database in ${dataDir} failed: ${reason}`)
  }
}

function listenAddress(endpoint: Endpoint): { path: string } | { host: string; port: number } {
  return endpoint.kind === 'socket' ? { path: endpoint.path } : { host: endpoint.host, port: 0 }
}

function parseHostPort(conn: string): Address {
  const colon = conn.lastIndexOf(':')
  return { host: conn.slice(0, colon), port: Number(conn.slice(colon + 1)) }
}

/** Best effort: some mounted volumes refuse chmod, and the database still works there. */
function restrict(path: string, mode: number, { log }: EmbeddedOptions): void {
  try {
    chmodSync(path, mode)
  } catch (error) {
    log.warn('embedded postgres: could not restrict permissions', { path, error })
  }
}
