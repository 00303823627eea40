/**
 * What the friction operator commands (svc backfill-tickets, svc reset-friction-tickets, and svc
 * environments, which lists the UUIDs they take) share: their flags checked before anything is
 * opened, the database they work on, and the project and environment they are about, checked to
 * exist and to be migrated to 078.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from '../../shared/config/index.js'
import type { Db } from '../../shared/db/index.js'
import type { Logger } from '../../shared/log.js'
import { DAY, HOUR } from '../../shared/time.js'
import { withCommandDb } from '../command-db.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** Recordings are kept at most 3650 days (SVC_RECORDING_RETENTION_DAYS): a longer lookback finds nothing more. */
const MAX_LOOKBACK_DAYS = 3650
/** One job a second per worker slot is already far more than matching keeps up with; a higher rate is a typo. */
export const MAX_RATE_PER_MINUTE = 6000

/** A command's exit: 2 for a flag to fix, 1 for what the database refused or lacks; code names it for scripts (--json). */
export class CommandStop extends Error {
  constructor(
    readonly exitCode: 1 | 2,
    message: string,
    readonly code: string = exitCode === 2 ? 'invalid_flag' : 'refused',
  ) {
    super(message)
    this.name = 'CommandStop'
  }
}

export interface Lookback {
  /** As given: 1d, 14d, 12h. */
  text: string
  ms: number
}

export interface Target {
  projectId: string
  environmentId: string
  since: Lookback
}

/** The --project, --environment and --since flags, or a CommandStop(2) naming the one to fix. */
export function parseTarget(flags: { project?: string; environment?: string; since?: string }): Target {
  const projectId = parseProject(flags.project)
  const environmentId = uuidFlag('--environment', ['the environment', 'an environment', 'svc environments --project <uuid> lists them, as does the project\'s settings page'], flags.environment)
  return { projectId, environmentId, since: parseLookback(flags.since) }
}

/** The --project flag, or a CommandStop(2) saying what it must be. */
export function parseProject(value: string | undefined): string {
  return uuidFlag('--project', ['the project', 'a project', "as in the dashboard's project addresses, /projects/<uuid>"], value)
}

function uuidFlag(flag: string, [the, a, where]: [string, string, string], value: string | undefined): string {
  if (value === undefined) throw new CommandStop(2, `${flag} is required: ${the}'s UUID (${where}).`, 'missing_flag')
  if (!UUID.test(value)) throw new CommandStop(2, `${flag} must be ${a} UUID like 00000000-0000-4000-8000-000000000000, got "${printable(value)}".`, 'invalid_uuid')
  return value.toLowerCase()
}

/** --since: whole hours or days back from now (12h, 1d, 14d). */
export function parseLookback(value: string | undefined): Lookback {
  if (value === undefined) throw new CommandStop(2, '--since is required: how far back to look, in hours or days (for example 1d, then 14d).', 'missing_flag')
  const match = /^([1-9]\d{0,5})([hd])$/.exec(value)
  const ms = match ? Number(match[1]) * (match[2] === 'd' ? DAY : HOUR) : NaN
  if (!match || ms > MAX_LOOKBACK_DAYS * DAY) {
    throw new CommandStop(2, `--since must be a whole number of hours or days from 1h to ${MAX_LOOKBACK_DAYS}d (for example 1d or 14d), got "${printable(value)}".`)
  }
  return { text: value, ms }
}

/** --rate: jobs per minute, above 0 and at most MAX_RATE_PER_MINUTE. */
export function parseRate(value: string | undefined): number {
  if (value === undefined) throw new CommandStop(2, '--rate is required: how many jobs start per minute (for example 60).', 'missing_flag')
  const rate = /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN
  if (!(rate > 0) || rate > MAX_RATE_PER_MINUTE) {
    throw new CommandStop(2, `--rate must be a number of jobs per minute above 0 and at most ${MAX_RATE_PER_MINUTE} (for example 60), got "${printable(value)}".`)
  }
  return rate
}

/** Untrusted text for a terminal: control characters (escape sequences) shown as '?'. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').slice(0, 200)
}

/**
 * Runs work on the stack's database: DATABASE_URL, or the embedded database of `svc up` in this
 * folder when there is one. A host checkout of the compose stack has neither: it says to set
 * DATABASE_URL rather than create an empty embedded database and find nothing in it.
 */
export async function withTargetDb<T>(config: Config, log: Logger, target: Target, work: (db: Db) => Promise<T>): Promise<T> {
  return withStackDb(config, log, async (db) => {
    await checkTarget(db, target)
    return work(db)
  })
}

/** Runs work on the stack's database (as withTargetDb), refusing one not migrated to 078. */
export async function withStackDb<T>(config: Config, log: Logger, work: (db: Db) => Promise<T>): Promise<T> {
  if (!config.databaseUrl && !existsSync(join(config.dataDir, 'pg', 'data', 'PG_VERSION'))) {
    throw new CommandStop(
      2,
      `DATABASE_URL is not set, and there is no embedded database in ${config.dataDir}. Run from a host checkout, set it to the stack's database, ` +
        'for example DATABASE_URL=postgres://svc:svc@localhost:5434/svc (the compose stack, with SVC_DB_HOST_PORT if you changed it).',
      'database_url_missing',
    )
  }
  return withCommandDb(config, log, async (db) => {
    const { rows: ledger } = await db.query<{ ready: boolean }>(
      `SELECT to_regclass('schema_migrations') IS NOT NULL AND EXISTS (SELECT 1 FROM schema_migrations WHERE version = 78) AS ready`,
    )
    if (!ledger[0]?.ready) throw new CommandStop(1, 'the database is not migrated to 078 (known problems): run "svc migrate" first (docs/upgrade-078.md).', 'not_migrated')
    return work(db)
  })
}

/** Whether the project exists. */
export async function projectExists(db: Db, projectId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM projects WHERE id = $1', [projectId])
  return rows.length > 0
}

async function checkTarget(db: Db, target: Target): Promise<void> {
  const { rows } = await db.query<{ id: string; name: string }>('SELECT e.id, e.name FROM projects p LEFT JOIN environments e ON e.project_id = p.id WHERE p.id = $1 ORDER BY e.name', [target.projectId])
  if (rows.length === 0) throw new CommandStop(1, noProject(target.projectId), 'project_not_found')
  if (rows.some((row) => row.id === target.environmentId)) return
  const known = rows.filter((row) => row.id !== null).map((row) => `${printable(row.name)} (${row.id})`)
  throw new CommandStop(1, `no environment ${target.environmentId} in project ${target.projectId}. Its environments: ${known.length > 0 ? known.join(', ') : 'none yet (one is made when the first event or recording naming it is stored)'}.`, 'environment_not_found')
}

/** What a command says of a project id the database does not hold. */
export function noProject(projectId: string): string {
  return `no project ${projectId}. Check the id on the dashboard or with the setup session's project_id.`
}

/** The lookback's start as the database reads it: one cutoff for a whole run. */
export async function cutoffOf(db: Db, since: Lookback): Promise<Date> {
  const { rows } = await db.query<{ cutoff: Date }>('SELECT now() - make_interval(secs => $1) AS cutoff', [since.ms / 1000])
  return rows[0]!.cutoff
}
