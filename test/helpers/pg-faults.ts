/**
 * Database faults a test can inject into its own database on the shared test server, as an
 * operator's restart or failover would: end every session (pg_terminate_backend, which is what a
 * server restart does to each connection) and refuse new ones (ALLOW_CONNECTIONS false, answered
 * with SQLSTATE 55000). The admin connection goes to the server's maintenance database.
 */
import pg from 'pg'
import { TEST_DATABASE_URL } from './env.js'

async function asAdmin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

/** The database a URL names. */
export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.slice(1))
}

/**
 * Ends every session on the database url names (optionally only those of one application); returns
 * how many. With idleInTransaction, ends only sessions caught between two statements of a
 * transaction, looking again and again for forMs.
 */
export async function terminateBackends(url: string, options: { applicationName?: string; adminUrl?: string; idleInTransaction?: boolean; forMs?: number } = {}): Promise<number> {
  return asAdmin(options.adminUrl ?? TEST_DATABASE_URL, async (admin) => {
    const until = Date.now() + (options.forMs ?? 0)
    let ended = 0
    do {
      const { rows } = await admin.query<{ n: number }>(
        `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
         WHERE datname = $1 AND pid <> pg_backend_pid() AND ($2::text IS NULL OR application_name = $2)
           AND (NOT $3 OR state = 'idle in transaction')`,
        [databaseName(url), options.applicationName ?? null, options.idleInTransaction ?? false],
      )
      ended += rows[0]!.n
    } while (Date.now() < until)
    return ended
  })
}

/** Closes the database url names to new connections (and ends the open ones), or opens it again. */
export async function refuseConnections(url: string, refuse: boolean, options: { adminUrl?: string } = {}): Promise<void> {
  const name = databaseName(url)
  await asAdmin(options.adminUrl ?? TEST_DATABASE_URL, (admin) => admin.query(`ALTER DATABASE ${pg.escapeIdentifier(name)} ALLOW_CONNECTIONS ${refuse ? 'false' : 'true'}`))
  if (refuse) await terminateBackends(url, options)
}
