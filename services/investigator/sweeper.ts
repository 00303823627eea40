/**
 * Nothing stays queued or analyzing: every half lease, investigations whose lease lapsed (no worker
 * renewed it: the dispatch was lost, or the worker died mid-run) are dispatched again with a fresh
 * lease, and those that used their attempts stop with lease_lost. Every worker may run it; the
 * optimistic lock makes two sweepers' changes to one row exclusive.
 */
import { EventEmitter } from 'node:events'
import { OptimisticLockError } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Redis } from 'ioredis'
import type { Orm } from '../../shared/orm.js'
import type { StreamKeys } from '../../shared/redis.js'
import { dispatchInvestigation } from './dispatch.js'
import { stop } from './stops.js'
import { setIssueStatus } from './store/admissions.js'
import { ACTIVE_STATES, Investigation } from './store/entities.js'
import { claimRun, RunTakenOver } from './store/run-record.js'
import { readFixCi, sweepFixes, type FixSweepOptions } from './fix/sweep.js'

export interface SweeperOptions {
  orm: Orm
  redis: Redis
  keys: StreamKeys
  leaseMs: number
  maxAttempts: number
  /** The fix stage's share (lapsed fixes, CI read-back), when this process runs it. */
  fixes?: FixSweepOptions
}

export class LeaseSweeper extends EventEmitter {
  #timer: NodeJS.Timeout | undefined
  #running: Promise<void> | undefined

  constructor(private readonly options: SweeperOptions) {
    super()
  }

  start(): void {
    this.#timer = setInterval(() => {
      this.#running ??= this.sweep()
        .then(async () => {
          if (!this.options.fixes) return
          await sweepFixes(this.options.fixes)
          await readFixCi(this.options.fixes)
        })
        .catch((error: unknown) => void this.emit('error', error))
        .finally(() => (this.#running = undefined))
    }, this.options.leaseMs / 2)
    this.#timer.unref()
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer)
    await this.#running
  }

  /** One pass; answers how many rows it dispatched again and how many it stopped. */
  async sweep(now = Date.now()): Promise<{ redispatched: number; stopped: number }> {
    const em = this.options.orm.em.fork() as EntityManager
    const lapsed = await em.find(Investigation, { state: { $in: [...ACTIVE_STATES] }, leaseUntil: { $lt: new Date(now) } }, { limit: 100 })
    let redispatched = 0
    let stopped = 0
    for (const row of lapsed) {
      if (row.attempts >= this.options.maxAttempts) {
        if (await this.#stopLapsed(row)) stopped++
        continue
      }
      try {
        // Back to queued: the next claim starts it over (a worker that merely stalled finds it taken).
        await em.transactional(async (tx) => {
          const held = tx.merge(row)
          held.state = 'queued'
          held.leaseUntil = new Date(now + this.options.leaseMs)
          await tx.flush()
          await setIssueStatus(tx, held.issueId, 'queued', '', '')
        })
      } catch (error) {
        if (error instanceof OptimisticLockError) continue
        throw error
      }
      await dispatchInvestigation(this.options.redis, this.options.keys, row.id)
      redispatched++
    }
    return { redispatched, stopped }
  }

  async #stopLapsed(row: Investigation): Promise<boolean> {
    try {
      const claim = await claimRun(this.options.orm, row.id, this.options.leaseMs, { countAttempt: false })
      if (claim.status !== 'claimed') return false
      await claim.record.finish(stop('lease_lost', `No worker finished the investigation in ${row.attempts} attempts; the last one stopped renewing its lease.`), 0)
      return true
    } catch (error) {
      if (error instanceof RunTakenOver) return false
      throw error
    }
  }
}
