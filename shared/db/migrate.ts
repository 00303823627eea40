/**
 * Applies the numbered SQL files in migrations/ in order, each in its own transaction, recorded
 * in a ledger. An advisory lock makes concurrent runs wait for each other, so a fleet can run the
 * migrate step on every host; a landed file whose text changed stops the run.
 *
 * Two guards say what to do instead of leaving a bare PostgreSQL error: a migration that creates
 * an extension the server lacks, or that the migration role may not create, stops before it runs
 * with the fix; and code older than the database (its ledger holds versions this code does not
 * know) is refused once a release from migration 078 on has written friction findings, since only
 * fix-forward is supported from there (docs/upgrade-078.md).
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type pg from 'pg'
import type { Db } from './index.js'

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url))
/** Arbitrary constant shared by every migrate run: the advisory-lock key. */
const LOCK_KEY = 7_082_001
/** The migration from which workers write friction findings: below it, only fix-forward. */
export const FINDINGS_MIGRATION = 78

/** PostgreSQL error codes a failing CREATE EXTENSION answers with. */
const PG_EXTENSION_ERRORS = Object.freeze({
  INSUFFICIENT_PRIVILEGE: '42501',
  /** PostgreSQL 15 on: 'extension "x" is not available'. */
  FEATURE_NOT_SUPPORTED: '0A000',
  /** Before 15: 'could not open extension control file'. */
  UNDEFINED_FILE: '58P01',
})

/** Where an extension comes from, for the message that says how to install it. */
const EXTENSION_PACKAGES: Readonly<Record<string, { project: string; debian: (major: number) => string; image: (major: number) => string }>> = {
  vector: { project: 'pgvector', debian: (major) => `postgresql-${major}-pgvector`, image: (major) => `pgvector/pgvector:pg${major}` },
}

export interface Migration {
  /** File name, e.g. 001_foundation.sql: what error messages name. */
  file: string
  version: number
  name: string
  sql: string
  checksum: string
  /** Statements run outside a transaction before this one, when their guard says so (NNN_name.before.sql). */
  before?: BeforeSteps
}

/**
 * What a migration needs done outside a transaction first (CREATE INDEX CONCURRENTLY, VALIDATE
 * CONSTRAINT on a large table): statements separated by a `--;;` line, each idempotent, run one by
 * one in autocommit only while the migration is not landed, and only when the `-- svc:before-if:`
 * query (one boolean) answers true.
 */
export interface BeforeSteps {
  guard: string | undefined
  statements: string[]
}

export interface MigrateResult {
  applied: Migration[]
  current: number
}

export type MigrateErrorCode = 'migration_changed' | 'migration_failed' | 'extension_unavailable' | 'extension_not_permitted' | 'rollback_unsupported'

/** A migrate run that stopped: a stable code, and a message that says what to do. */
export class MigrateError extends Error {
  override name = 'MigrateError'
  constructor(
    readonly code: MigrateErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** Reads migrations/NNN_name.sql files sorted by number. */
export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const files = readdirSync(dir).filter((f) => /^\d+_[a-z0-9_]+\.sql$/.test(f))
  const migrations = files.map((file) => {
    const sql = readFileSync(`${dir}/${file}`, 'utf8')
    const [number, ...rest] = file.replace(/\.sql$/, '').split('_')
    const beforeFile = `${dir}/${file.replace(/\.sql$/, '.before.sql')}`
    const before = existsSync(beforeFile) ? beforeStepsOf(readFileSync(beforeFile, 'utf8')) : undefined
    return { file, version: Number(number), name: rest.join('_'), sql, checksum: createHash('sha256').update(sql).digest('hex'), ...(before ? { before } : {}) }
  })
  migrations.sort((a, b) => a.version - b.version)
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]!.version === migrations[i - 1]!.version) {
      throw new Error(`Two migrations share number ${migrations[i]!.version}; renumber the newer file.`)
    }
  }
  return migrations
}

/** A before file's guard and statements. */
function beforeStepsOf(text: string): BeforeSteps {
  const guard = /^-- svc:before-if: (.+)$/m.exec(text)?.[1]
  const statements = text.split(/^--;;$/m).slice(1).map((part) => part.trim()).filter((part) => part.replace(/^--.*$/gm, '').trim() !== '')
  return { guard, statements }
}

/** A migration's before steps, in autocommit, when its guard answers true. */
async function runBeforeSteps(client: pg.PoolClient, migration: Migration): Promise<void> {
  if (!migration.before) return
  if (migration.before.guard) {
    const { rows } = await client.query<{ run: boolean | null }>(`SELECT (${migration.before.guard}) AS run`)
    if (rows[0]?.run !== true) return
  }
  for (const statement of migration.before.statements) {
    try {
      await client.query(statement)
    } catch (error) {
      throw await explainFailure(client, migration, error)
    }
  }
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
      await refuseRollbackPastFindings(client, [...landed.keys()], migrations)
      const applied: Migration[] = []
      for (const migration of migrations) {
        const checksum = landed.get(migration.version)
        if (checksum !== undefined) {
          if (checksum !== migration.checksum) {
            throw new MigrateError('migration_changed', `Migration ${migration.file} changed after it was applied. Landed migrations are append-only: restore the file and add a new numbered one.`)
          }
          continue
        }
        await requireExtensions(client, migration)
        await runBeforeSteps(client, migration)
        await client.query('BEGIN')
        try {
          await client.query(migration.sql)
          await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [migration.version, migration.name, migration.checksum])
          await client.query('COMMIT')
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {})
          throw await explainFailure(client, migration, error)
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

/**
 * A database migrated by a newer release (versions this code does not know) whose workers wrote
 * friction findings cannot be run by this code: what those migrations changed is not undone, and
 * replaying older steps against the stored findings is not supported. Without findings the older
 * code may run, as before.
 */
async function refuseRollbackPastFindings(client: pg.PoolClient, landed: number[], migrations: Migration[]): Promise<void> {
  const known = new Set(migrations.map((m) => m.version))
  const unknown = landed.filter((v) => !known.has(v)).sort((a, b) => a - b)
  if (!unknown.some((v) => v >= FINDINGS_MIGRATION)) return
  const { rows } = await client.query<{ findings: boolean }>(`SELECT to_regclass('friction_findings') IS NOT NULL AS findings`)
  if (!rows[0]?.findings || (await client.query('SELECT 1 FROM friction_findings LIMIT 1')).rowCount === 0) return
  const newest = Math.max(0, ...known)
  throw new MigrateError(
    'rollback_unsupported',
    `This database holds migration${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}, which this release does not know (it knows up to ${newest}), and workers have written friction findings. ` +
      `Rollback below migration ${String(FINDINGS_MIGRATION).padStart(3, '0')} after workers wrote findings is unsupported: only fix-forward is. ` +
      'Run the release that migrated this database, or a later one with the fix; nothing was changed.',
  )
}

/** The extensions a migration creates: CREATE EXTENSION [IF NOT EXISTS] name. */
function extensionsOf(sql: string): string[] {
  const names = [...sql.matchAll(/^\s*CREATE\s+EXTENSION\s+(?:IF\s+NOT\s+EXISTS\s+)?"?([a-z0-9_]+)"?/gim)].map((m) => m[1]!.toLowerCase())
  return [...new Set(names)]
}

/** Stops before a migration whose extension the server does not have, with how to install it. */
async function requireExtensions(client: pg.PoolClient, migration: Migration): Promise<void> {
  for (const name of extensionsOf(migration.sql)) {
    const { rows } = await client.query<{ installed: boolean; available: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = $1) AS installed,
              EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = $1) AS available`,
      [name],
    )
    if (rows[0]?.installed || rows[0]?.available) continue
    throw new MigrateError('extension_unavailable', await unavailableMessage(client, migration, name))
  }
}

async function serverMajor(client: pg.PoolClient): Promise<number> {
  const { rows } = await client.query<{ num: string }>(`SELECT current_setting('server_version_num') AS num`)
  return Math.floor(Number(rows[0]?.num ?? 0) / 10000)
}

async function unavailableMessage(client: pg.PoolClient, migration: Migration, name: string): Promise<string> {
  const major = await serverMajor(client)
  const known = EXTENSION_PACKAGES[name]
  const install = known
    ? `Install ${known.project} for PostgreSQL ${major} on the database server (the ${known.debian(major)} package on Debian and Ubuntu, or run the ${known.image(major)} image)`
    : `Install the "${name}" extension for PostgreSQL ${major} on the database server`
  return (
    `Migration ${migration.file} needs the PostgreSQL extension "${name}", which this database server (PostgreSQL ${major}) does not have. ` +
    `${install}, and let the migration role create it, then run the migrate step again. Nothing was changed; the bundled database already has it.`
  )
}

/** The error a failed migration is reported with: an extension's missing right or file said plainly. */
async function explainFailure(client: pg.PoolClient, migration: Migration, error: unknown): Promise<MigrateError> {
  const { code, message } = error as { code?: string; message?: string }
  const extension = /extension "([^"]+)"/.exec(message ?? '')?.[1]
  try {
    if (extension && code === PG_EXTENSION_ERRORS.INSUFFICIENT_PRIVILEGE) {
      const { rows } = await client.query<{ role: string; database: string }>('SELECT current_user AS role, current_database() AS database')
      const { role, database } = rows[0]!
      return new MigrateError(
        'extension_not_permitted',
        `Migration ${migration.file} could not create the PostgreSQL extension "${extension}": the migration role "${role}" is not allowed to (${message}). ` +
          `Create it once as a superuser (psql -d ${database} -c 'CREATE EXTENSION IF NOT EXISTS ${extension};') or give the role that right, then run the migrate step again. Nothing was changed.`,
        { cause: error },
      )
    }
    if (extension && (code === PG_EXTENSION_ERRORS.FEATURE_NOT_SUPPORTED || code === PG_EXTENSION_ERRORS.UNDEFINED_FILE)) {
      return new MigrateError('extension_unavailable', await unavailableMessage(client, migration, extension), { cause: error })
    }
  } catch {
    // The connection itself failed: the plain message below still says which migration.
  }
  return new MigrateError('migration_failed', `Migration ${migration.file} failed: ${message ?? String(error)}`, { cause: error })
}
