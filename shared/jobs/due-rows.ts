/**
 * Dispatch of leased jobs that wait for a time (a digest's next step, a backfill's friction job):
 * such a row is queued with no lease (lease_until null: never dispatched) and a not_before. Once
 * due it is marked dispatched (a lease, the version moved, updated_at) and its stream entry added,
 * in that order, so a dispatch that fails after the mark is only late (the lapsed-lease sweep
 * dispatches it again), never lost; FOR UPDATE SKIP LOCKED lets several sweepers share the rows.
 */
import type { Redis } from 'ioredis'
import type { Queryable } from '../db/index.js'
import { addEntries, type JobStream } from './job-stream.js'

/** A table of an actor's own whose rows are jobs dispatched when due (leasedProperties('when due')). */
export interface DueTable {
  /** The table's name (a constant of the actor's, never input). */
  readonly table: string
  /** The state of a row waiting for its dispatch ('queued', 'pending'). */
  readonly queuedState: string
  /** The stream its entries go to. */
  readonly stream: string
  /** The column that names a row's kind, when the table holds several (friction_jobs.kind). */
  readonly kindColumn?: string
  /** The entry of a row of kind (undefined: the table's one kind). */
  entryOf(kind: string | undefined): JobStream
}

export interface DueOptions {
  /** The lease a dispatched row gets: it is dispatched again once that lapses. */
  leaseMs: number
  /** Rows one call dispatches at most; the rest wait for the next. */
  limit: number
  /** The time rows are due by (an actor's own clock); the database's now() unless said. */
  now?: Date
  /** Only rows of these kinds (of kindColumn): a paused kind is left undispatched. */
  kinds?: readonly string[]
}

/** Dispatches up to limit queued, never dispatched rows whose not_before passed, oldest due first; answers how many. */
export async function dispatchDueRows(db: Queryable, redis: Redis, due: DueTable, options: DueOptions): Promise<number> {
  if (options.kinds?.length === 0) return 0
  const values: unknown[] = [options.leaseMs / 1000, options.limit]
  const param = (value: unknown): string => `$${values.push(value)}`
  const by = options.now ? param(options.now) : 'now()'
  const ofKinds = options.kinds && due.kindColumn ? ` AND ${due.kindColumn} = ANY(${param(options.kinds)}::text[])` : ''
  const { rows } = await db.query<{ id: string; kind?: string }>(
    `${MARK(due)} WHERE id IN (SELECT id FROM ${due.table}
                    WHERE state = '${due.queuedState}' AND lease_until IS NULL AND not_before <= ${by}${ofKinds}
                    ORDER BY not_before LIMIT $2 FOR UPDATE SKIP LOCKED)
      ${RETURNING(due)}`,
    values,
  )
  await addDueEntries(redis, due, rows)
  return rows.length
}

/**
 * Dispatches committed rows by id now (a scan's new match jobs), whatever their not_before: each is
 * marked, then its entry added. A row claimed or dispatched in the meantime is left alone.
 */
export async function dispatchRows(db: Queryable, redis: Redis, due: DueTable, ids: readonly string[], leaseMs: number): Promise<number> {
  if (ids.length === 0) return 0
  const { rows } = await db.query<{ id: string; kind?: string }>(
    `${MARK(due)} WHERE id = ANY($2::uuid[]) AND state = '${due.queuedState}' AND lease_until IS NULL ${RETURNING(due)}`,
    [leaseMs / 1000, ids],
  )
  await addDueEntries(redis, due, rows)
  return rows.length
}

/** The update that marks rows dispatched for $1 seconds. */
const MARK = (due: DueTable): string => `UPDATE ${due.table} SET lease_until = now() + make_interval(secs => $1), version = version + 1, updated_at = now()`

const RETURNING = (due: DueTable): string => `RETURNING id${due.kindColumn ? `, ${due.kindColumn} AS kind` : ''}`

function addDueEntries(redis: Redis, due: DueTable, rows: ReadonlyArray<{ id: string; kind?: string }>): Promise<void> {
  return addEntries(redis, due.stream, rows.map((row) => [due.entryOf(row.kind).field, row.id] as const))
}
