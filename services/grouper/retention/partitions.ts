/**
 * The events table's weekly partitions (migration 088, docs/retention.md): which exist with their
 * bounds, the weeks made ahead, and whole weeks dropped once expired. Each change is one statement,
 * so a pass killed midway leaves every partition either there whole or gone.
 */
import type { Queryable } from '../../../shared/db/index.js'
import { DAY } from '../../../shared/time.js'

export const WEEK = 7 * DAY
/**
 * How long a partition change waits for the events table's lock: creating or dropping a partition
 * takes a brief lock that grouper transactions queue behind, so a busy moment is left for the next
 * pass rather than holding ingestion.
 */
const LOCK_TIMEOUT = '5s'

export interface Partition {
  name: string
  /** Undefined for events_legacy's MINVALUE and for the default partition. */
  from: Date | undefined
  /** Undefined for the default partition. */
  to: Date | undefined
  isDefault: boolean
}

/** The partitions of events with their bounds. */
export async function getPartitions(db: Queryable): Promise<Partition[]> {
  const { rows } = await db.query<{ name: string; bound: string; from: Date | null; to: Date | null }>(
    `SELECT c.relname AS name, b.bound,
            (regexp_match(b.bound, 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz AS "from",
            (regexp_match(b.bound, 'TO \\(''([^'']+)''\\)'))[1]::timestamptz AS "to"
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       CROSS JOIN LATERAL (SELECT pg_get_expr(c.relpartbound, c.oid) AS bound) b
     WHERE i.inhparent = 'events'::regclass
     ORDER BY "to" NULLS LAST`,
  )
  return rows.map((row) => ({ name: row.name, from: row.from ?? undefined, to: row.to ?? undefined, isDefault: row.bound === 'DEFAULT' }))
}

/** Monday 00:00 UTC of the week holding at. */
export function weekStart(at: number): Date {
  const day = new Date(at)
  day.setUTCHours(0, 0, 0, 0)
  return new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY)
}

/** A week's partition name: events_w and its Monday, e.g. events_w20261130. */
export function weekName(start: Date): string {
  return `events_w${start.toISOString().slice(0, 10).replaceAll('-', '')}`
}

/** Creates the weeks from now's to `ahead` weeks after it that no partition covers yet; answers the names made. */
export async function createAhead(db: Queryable, partitions: readonly Partition[], ahead: number, now: number): Promise<string[]> {
  return createWeeks(db, partitions, now, now + ahead * WEEK)
}

/** Creates a partition for each week from the one holding from to the one holding to that no partition covers yet. */
export async function createWeeks(db: Queryable, partitions: readonly Partition[], from: number, to: number): Promise<string[]> {
  const made: string[] = []
  for (let start = weekStart(from).getTime(); start <= to; start += WEEK) {
    const lower = new Date(start)
    const upper = new Date(start + WEEK)
    const taken = partitions.some((p) => !p.isDefault && p.to !== undefined && p.to > lower && (p.from === undefined || p.from < upper))
    if (taken) continue
    await withLockTimeout(db, `CREATE TABLE IF NOT EXISTS ${weekName(lower)} PARTITION OF events FOR VALUES FROM ('${lower.toISOString()}') TO ('${upper.toISOString()}')`)
    made.push(weekName(lower))
  }
  return made
}

/** Drops every bounded partition whose upper bound is at or before expiredBefore; answers the names dropped. */
export async function dropExpired(db: Queryable, partitions: readonly Partition[], expiredBefore: Date): Promise<string[]> {
  const dropped: string[] = []
  for (const partition of partitions) {
    if (partition.isDefault || partition.to === undefined || partition.to > expiredBefore) continue
    await withLockTimeout(db, `DROP TABLE IF EXISTS ${quoteName(partition.name)}`)
    dropped.push(partition.name)
  }
  return dropped
}

/**
 * One statement under a short lock timeout: sent with the SET LOCAL as one query, which PostgreSQL
 * runs as one implicit transaction, so the timeout ends with it whatever the pool's session.
 */
async function withLockTimeout(db: Queryable, statement: string): Promise<void> {
  await db.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'; ${statement}`)
}

function quoteName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}
