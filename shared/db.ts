/**
 * PostgreSQL access for every actor: a pg pool with a transaction helper. Embedded mode passes
 * max 1, because PGlite's socket server hangs when several connections interleave transactions.
 */
import pg from 'pg'

/** Anything that runs a parameterised query: the pool, or a client inside a transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>
}

export interface Db {
  readonly pool: pg.Pool
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
})

// Socket failures reaching the server, SQLSTATE class 08 (connection exception), and the server
// shutting down, restarting or full.
const OUTAGE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH'])
const OUTAGE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300'])

/** True when an error says PostgreSQL could not be reached or went away, not that a statement failed. */
export function isDatabaseOutage(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && (OUTAGE_SOCKET_CODES.has(code) || OUTAGE_SQLSTATES.has(code) || code.startsWith('08'))) return true
  return typeof message === 'string' && /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message)
}

/** Opens a pool against url. */
export function createDb(url: string, options: { max?: number; applicationName?: string } = {}): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'svc',
  })
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {})
  return {
    pool,
    query: (text, values) => pool.query(text, values),
    async withTransaction(fn) {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        const result = await fn(client)
        await client.query('COMMIT')
        return result
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {})
        throw error
      } finally {
        client.release()
      }
    },
    close: () => pool.end(),
  }
}
