/**
 * Applies the numbered SQL files in migrations/ in order, each in its own transaction, recorded
 * in a ledger. An advisory lock makes concurrent runs wait for each other, so a fleet can run the
 * migrate step on every host; a landed file whose text changed stops the run.
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Db } from './db.js'

export const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url))
/** Arbitrary constant shared by every migrate run: the advisory-lock key. */
const LOCK_KEY = 7_082_001

export interface Migration {
  /** File name, e.g. 001_foundation.sql: what error messages name. */
  file: string
  version: number
  name: string
  sql: string
  checksum: string
}

export interface MigrateResult {
  applied: Migration[]
  current: number
}

/** Reads migrations/NNN_name.sql files sorted by number. */
export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const files = readdirSync(dir).filter((f) => /^\d+_[a-z0-9_]+\.sql$/.test(f))
  const migrations = files.map((file) => {
    const sql = readFileSync(`${dir}/${file}`, 'utf8')
    const [number, ...rest] = file.replace(/\.sql$/, '').split('_')
    return { file, version: Number(number), name: rest.join('_'), sql, checksum: createHash('sha256').update(sql).digest('hex') }
  })
  migrations.sort((a, b) => a.version - b.version)
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]!.version === migrations[i - 1]!.version) {
      throw new Error(`Two migrations share number ${migrations[i]!.version}; renumber the newer file.`)
    }
  }
  return migrations
}

/** Applies every migration not yet in the ledger; safe to rerun and to run concurrently. */
export async function migrate(db: Db, migrations = readMigrations()): Promise<MigrateResult> {
  const client = await db.pool.connect()
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY])
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now())`)
      const { rows } = await client.query<{ version: number; checksum: string }>('SELECT version, checksum FROM schema_migrations')
      const landed = new Map(rows.map((r) => [r.version, r.checksum]))
      const applied: Migration[] = []
      for (const migration of migrations) {
        const checksum = landed.get(migration.version)
        if (checksum !== undefined) {
          if (checksum !== migration.checksum) {
            throw new Error(`Migration ${migration.file} changed after it was applied. Landed migrations are append-only: restore the file and add a new numbered one.`)
          }
          continue
        }
        await client.query('BEGIN')
        try {
          await client.query(migration.sql)
          await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [migration.version, migration.name, migration.checksum])
          await client.query('COMMIT')
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {})
          throw new Error(`Migration ${migration.file} failed: ${(error as Error).message}`, { cause: error })
        }
        applied.push(migration)
      }
      const current = Math.max(0, ...migrations.map((m) => m.version))
      return { applied, current }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {})
    }
  } finally {
    client.release()
  }
}
