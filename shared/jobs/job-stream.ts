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
    idOf: (entry) => entry.fields[field] ?? '',
  }
}
