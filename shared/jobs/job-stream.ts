/**
 * A job stream's one message: "run job <id>". The row in PostgreSQL is the job; the entry only
 * dispatches it, after the row's transaction committed (the sweeper dispatches again whatever a
 * crash left undispatched). Writer and reader share this one definition of the field.
 */
import type { Redis } from 'ioredis'
import type { StreamEntry } from '../streams/index.js'

export interface JobStream {
  /** The entry's one field, naming the job's kind ('investigation', 'fix'). */
  readonly field: string
  /** Adds the entry that makes a worker run job id. */
  dispatch(redis: Redis, stream: string, id: string): Promise<void>
  /** Adds the entries of several jobs in one pipeline; throws the first entry's error. */
  dispatchAll(redis: Redis, stream: string, ids: readonly string[]): Promise<void>
  /** The job id an entry names ('' when it names none: such an entry runs nothing). */
  idOf(entry: StreamEntry): string
}

/** The stream message of jobs whose entries carry their id in field. */
export function jobStream(field: string): JobStream {
  return {
    field,
    async dispatch(redis, stream, id) {
      await redis.xadd(stream, '*', field, id)
    },
    dispatchAll: (redis, stream, ids) => addEntries(redis, stream, ids.map((id) => [field, id])),
    idOf: (entry) => entry.fields[field] ?? '',
  }
}

/** Adds one entry a pair of field and job id, in one pipeline; throws the first entry's error. */
export async function addEntries(redis: Redis, stream: string, entries: ReadonlyArray<readonly [field: string, id: string]>): Promise<void> {
  if (entries.length === 0) return
  const pipeline = redis.pipeline()
  for (const [field, id] of entries) pipeline.xadd(stream, '*', field, id)
  for (const [error] of (await pipeline.exec()) ?? []) if (error) throw error
}
