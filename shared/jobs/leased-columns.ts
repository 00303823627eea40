/**
 * The columns that make a row a leased job, as MikroORM properties: one definition for every
 * actor's job table (digests, friction_jobs, investigations, fixes), spread into its EntitySchema.
 * The migrations made the columns; this only names them for the ORM, so the names here are the
 * tables' own (state, attempts, lease_until, started_at, version, and not_before on a due table).
 */

/**
 * How a table's rows are dispatched: 'at once' rows get their lease when they are made and are
 * dispatched after that commit (an investigation, a fix); 'when due' rows wait with no lease
 * (lease_until null) until their not_before passes and dispatchDueRows dispatches them (a digest's
 * step, a backfill's friction job).
 */
export type Dispatched = 'at once' | 'when due'

const LEASED = {
  state: { type: 'string' },
  attempts: { type: 'integer' },
  startedAt: { type: 'datetime', nullable: true },
  // Every write of a job row is an optimistic-lock update (leased-record.ts).
  version: { type: 'integer', version: true },
} as const

/** The leased columns of a job table dispatched as said, for its EntitySchema's properties. */
export function leasedProperties(dispatched: 'at once'): typeof LEASED & { leaseUntil: { type: 'datetime' } }
export function leasedProperties(dispatched: 'when due'): typeof LEASED & { leaseUntil: { type: 'datetime'; nullable: true }; notBefore: { type: 'datetime' } }
export function leasedProperties(dispatched: Dispatched): object {
  if (dispatched === 'at once') return { ...LEASED, leaseUntil: { type: 'datetime' } }
  return { ...LEASED, leaseUntil: { type: 'datetime', nullable: true }, notBefore: { type: 'datetime' } }
}
