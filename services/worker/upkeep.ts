/**
 * The workers' upkeep sweep (docs/storage.md): what grows without an end unless something removes
 * it. Every worker runs one PeriodicSweeper under one fleet lock, so one worker of the fleet does
 * it each interval, whichever services it hosts: ended digests past SVC_DIGESTS_KEEP_DAYS (the
 * digester's command), setup sessions past their expiry plus SVC_SETUP_SESSIONS_KEEP_DAYS (the web
 * side's command) and dead letters past SVC_DEAD_LETTERS_KEEP_DAYS. Each pass is bounded; a
 * backlog goes over the following intervals.
 */
import type { Redis } from 'ioredis'
import type { DataSettings } from '../../shared/config/data.js'
import type { Queryable } from '../../shared/db/index.js'
import { PeriodicSweeper } from '../../shared/jobs/index.js'
import type { StreamKeys } from '../../shared/redis.js'
import { trimDeadLetters } from '../../shared/streams/index.js'
import { MINUTE } from '../../shared/time.js'
import { streamTopology } from '../../shared/topology.js'
import { removeOldDigests } from '../digester/commands.js'
import { removeExpiredSetupSessions } from '../web/commands/setup-sessions.js'

/** How often the fleet's upkeep runs: what it removes is days old, so minutes of lag cost nothing. */
export const UPKEEP_EVERY_MS = 10 * MINUTE
/** Rows one pass removes at most per table: a few hundred milliseconds of deletes, never a long lock. */
export const UPKEEP_PER_PASS = 1000

export interface UpkeepDeps {
  db: Queryable
  redis: Redis
  keys: StreamKeys
  data: Pick<DataSettings, 'digestsKeepMs' | 'setupSessionsKeepMs' | 'deadLettersKeepMs'>
}

/** The upkeep sweeper (not started). */
export function upkeepSweeper(deps: UpkeepDeps, everyMs: number = UPKEEP_EVERY_MS): PeriodicSweeper {
  return new PeriodicSweeper({
    redis: deps.redis,
    lockKey: deps.keys.upkeepSweep,
    everyMs,
    passes: [
      { name: 'old digests', run: () => removeOldDigests(deps.db, deps.data.digestsKeepMs, UPKEEP_PER_PASS) },
      { name: 'expired setup sessions', run: () => removeExpiredSetupSessions(deps.db, deps.data.setupSessionsKeepMs, UPKEEP_PER_PASS) },
      { name: 'old dead letters', run: () => trimDeadLetters(deps.redis, streamTopology(deps.keys), deps.data.deadLettersKeepMs) },
    ],
  })
}
