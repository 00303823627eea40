/**
 * The embedded database: PGlite with pgvector, persisted in <dataDir>/pg, served to node-postgres
 * over a unix socket (nothing listens on TCP). Callers use a single connection: PGlite's socket
 * server hangs when several connections interleave parameterised queries with transactions.
 */
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite-pgvector'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'
import type { Logger } from '../log.js'
import { lockDir } from './dir-lock.js'
import { socketDir } from './socket-path.js'

export interface EmbeddedService {
  /** Connection URL for the service's client. */
  url: string
  stop(): Promise<void>
}

const SOCKET_NAME = '.s.PGSQL.5432'

/** Opens (creating if needed) the embedded database and serves it on a unix socket. */
export async function startEmbeddedPostgres(options: { dataDir: string; log: Logger }): Promise<EmbeddedService> {
  const root = join(options.dataDir, 'pg')
  const lock = lockDir(root)
  try {
    const db = await PGlite.create({ dataDir: join(root, 'data'), extensions: { vector } })
    await db.exec('CREATE EXTENSION IF NOT EXISTS vector')
    const dir = socketDir(root, SOCKET_NAME)
    mkdirSync(dir, { recursive: true })
    const path = join(dir, SOCKET_NAME)
    rmSync(path, { force: true }) // a socket file left by a killed run
    const server = new PGLiteSocketServer({ db, path })
    await server.start()
    options.log.debug('embedded postgres ready', { socket: path })
    return {
      url: `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dir)}`,
      async stop() {
        await server.stop()
        await db.close()
        rmSync(path, { force: true })
        lock.release()
      },
    }
  } catch (error) {
    lock.release()
    throw error
  }
}
