/**
 * PostgreSQL access for every actor: a pg pool with a transaction helper, and the process's view
 * of database outages. Embedded mode passes max 1, because PGlite's socket server hangs when
 * several connections interleave transactions.
 */
import pg from 'pg'
import type { Logger } from '../log.js'
import { OutageWatch } from './outage-watch.js'
import { SECOND } from '../time.js'

/** Anything that runs a parameterised query: the pool, or a client inside a transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>
}

export interface Db {
  readonly pool: pg.Pool
  /** The server's address, for a second way in (the ORM's own pool). */
  readonly connectionString: string
  /** True when the server takes one connection at a time (embedded PGlite): others must borrow this pool's. */
  readonly singleConnection: boolean
  /** Whether the database answers, as this process last found: work that meets an outage waits on it. */
  readonly outage: OutageWatch
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>
  /** Runs fn inside BEGIN/COMMIT on one connection, rolling back if it throws. */
  withTransaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T>
  close(): Promise<void>
}

/** Named PostgreSQL error codes the code reacts to. */
export const PG = Object.freeze({
  UNIQUE_VIOLATION: '23505',
  FOREIGN_KEY_VIOLATION: '23503',
  SERIALIZATION_FAILURE: '40001',
  DEADLOCK_DETECTED: '40P01',
  UNDEFINED_TABLE: '42P01',
  DUPLICATE_DATABASE: '42P04',
  INVALID_CATALOG_NAME: '3D000',
  /** object_not_in_prerequisite_state; with "not currently accepting connections", a database closed to connections. */
  NOT_IN_PREREQUISITE_STATE: '55000',
})

// Socket failures reaching the server.
const OUTAGE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])
// The server ending our session or refusing new ones: admin shutdown, crash shutdown, cannot
// connect now (starting up or shutting down), idle session timeout, too many connections.
const OUTAGE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57P05', '53300'])
// Class 08 connection exception, 53 insufficient resources (a full disk: no batch can succeed
// until space is freed), 58 system error (I/O).
const OUTAGE_CLASSES = ['08', '53', '58']
// node-postgres's own words for a connection that went away or never came.
const OUTAGE_MESSAGES = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Connection is closed/i

/**
 * True when an error says PostgreSQL could not be reached, went away or cannot take writes now,
 * not that a statement failed: the work was not at fault and should wait for the database.
 */
export function isDatabaseOutage(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  const text = typeof message === 'string' ? message : ''
  if (typeof code === 'string') {
    if (OUTAGE_SOCKET_CODES.has(code) || OUTAGE_SQLSTATES.has(code) || OUTAGE_CLASSES.some((c) => code.startsWith(c))) return true
    // ALTER DATABASE … ALLOW_CONNECTIONS false; the same code also means ordinary statement errors.
    if (code === PG.NOT_IN_PREREQUISITE_STATE && /not currently accepting connections/i.test(text)) return true
  }
  return OUTAGE_MESSAGES.test(text)
}

export interface DbOptions {
  max?: number
  applicationName?: string
  /** Receives one line when an outage starts and one when it ends. */
  log?: Logger
  /**
   * How long getting a connection may take, pool wait included, before it fails as an outage
   * (default 10 s, so a server that stops answering, as in a network partition, shows up instead
   * of holding a batch forever). 0 waits indefinitely: the embedded database admits one connection
   * at a time and queues the next, which is waiting, not an outage.
   */
  connectTimeoutMs?: number
}

/** Opens a pool against url. */
export function createDb(url: string, options: DbOptions = {}): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'svc',
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10 * SECOND,
    keepAlive: true,
  })
  // Connection errors are answered where the work is: the query in flight rejects and its caller
  // waits on the outage watch. What is needed here is that no client's 'error' event goes
  // unheard, ever: the pool listens only while a client is idle, and a connection the server
  // terminated while a transaction held it used to end the process with an unhandled 'error'.
  pool.on('error', () => {})
  pool.on('connect', (client) => client.on('error', () => {}))
  const outage = new OutageWatch({ what: 'database', probe: () => pool.query('SELECT 1'), log: options.log })
  return {
    pool,
    connectionString: url,
    singleConnection: (options.max ?? 10) === 1,
    outage,
    query: (text, values) => pool.query(text, values),
    async withTransaction(fn) {
      const client = await pool.connect()
      let broken: Error | undefined
      try {
        await client.query('BEGIN')
        const result = await fn(client)
        await client.query('COMMIT')
        return result
      } catch (error) {
        // A connection that went away is discarded, not handed to the next caller.
        if (isDatabaseOutage(error)) broken = error as Error
        else await client.query('ROLLBACK').catch((rollbackError: unknown) => (broken = rollbackError as Error))
        throw error
      } finally {
        client.release(broken)
      }
    },
    close: () => {
      outage.close()
      return pool.end()
    },
  }
}
