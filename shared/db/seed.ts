/** The development seed (scripts/seed-e2e.sql) and the public, development-only key it creates. */
import { readFileSync } from 'node:fs'
import type { Db } from './index.js'

export const SEED_SQL_PATH = new URL('../../scripts/seed-e2e.sql', import.meta.url)
export const SEED_PROJECT_ID = '00000000-0000-4000-8000-00000000e2e0'
/** Printed by svc up and named in the README: it is public by design, like every ingest key. */
export const SEED_INGEST_KEY = 'svc_pk_seede2e00001_DevOnlyIngestKeyNotASecret000001'

/** Runs the seed script in one transaction. */
export async function applySeed(db: Db): Promise<void> {
  const sql = readFileSync(SEED_SQL_PATH, 'utf8')
  await db.withTransaction((client) => client.query(sql))
}
