/** The grouper's fleet-wide retention sweep: the job runtime's sweeper running the pass each interval. */
import type { Redis } from 'ioredis'
import { dataConfig } from '../../../shared/config/data.js'
import type { Db } from '../../../shared/db/index.js'
import { PeriodicSweeper } from '../../../shared/jobs/index.js'
import type { Logger } from '../../../shared/log.js'
import type { StreamKeys } from '../../../shared/redis.js'
import { runRetentionPass, type RetentionSettings } from './pass.js'

export interface GrouperRetention extends RetentionSettings {
  /** How often the pass runs (SVC_RETENTION_PASS_MINUTES). */
  readonly retentionPassMs: number
}

/** The sweeper that runs the retention pass every retentionPassMs on one worker of the fleet. */
export function retentionSweep(deps: { db: Db; redis: Redis; keys: StreamKeys; data?: GrouperRetention }, log: Logger): PeriodicSweeper {
  // Without settings (a caller written before retention): the defaults, as an unset environment gives them.
  const settings = deps.data ?? dataConfig({})
  const sweeper = new PeriodicSweeper({
    redis: deps.redis,
    lockKey: `${deps.keys.events}:retention`,
    everyMs: settings.retentionPassMs,
    passes: [
      {
        name: 'retention',
        run: async () => {
          const done = await runRetentionPass(deps.db, settings)
          if (done.ran) log.info('retention pass done', { created: done.created, dropped: done.dropped, rows_deleted: done.rowsDeleted, receipts_pruned: done.receiptsPruned })
        },
      },
    ],
  })
  sweeper.on('error', (error: Error & { pass?: string }) => log.warn('retention pass failed; the next one tries again', { pass: error.pass, error }))
  return sweeper
}
