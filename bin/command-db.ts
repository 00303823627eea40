/**
 * The database a one-shot command works on: DATABASE_URL, or without it the embedded database in
 * the data folder (whose lock says so when `svc up` holds it). Closed, and the embedded server
 * stopped, when the work is done.
 */
import type { Config } from '../shared/config/index.js'
import { createDb, type Db } from '../shared/db/index.js'
import { startEmbeddedPostgres } from '../shared/embedded/index.js'
import type { Logger } from '../shared/log.js'

/** Runs work on the command's database; a failure to open it rejects with its message. */
export async function withCommandDb<T>(config: Config, log: Logger, work: (db: Db) => Promise<T>): Promise<T> {
  let embedded: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined
  let url = config.databaseUrl
  if (!url) {
    embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, log })
    url = embedded.url
  }
  const db = createDb(url, { max: 1, ...embedded?.pool })
  try {
    return await work(db)
  } finally {
    await db.close()
    await embedded?.stop()
  }
}
