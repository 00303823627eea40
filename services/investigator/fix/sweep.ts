/**
 * The fix stage's share of the sweep: fixes whose lease lapsed go back to queued and are dispatched
 * again (after their attempts, they stop with lease_lost), so no issue stays in investigated or
 * fixing; and the repository CI of delivered pull requests is read back until it settles.
 */
import { OptimisticLockError } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Redis } from 'ioredis'
import type { Db } from '../../../shared/db.js'
import type { Orm } from '../../../shared/orm.js'
import type { CodehostPlugin } from '../../../shared/plugins/types.js'
import type { StreamKeys } from '../../../shared/redis.js'
import { dispatchFix } from '../dispatch.js'
import { setIssueStatus } from '../store/admissions.js'
import { Fix, FIX_ACTIVE_STATES } from '../store/fix-entities.js'
import { claimFix, RunTakenOver } from '../store/fix-record.js'
import { stopped } from './run.js'

export interface FixSweepOptions {
  orm: Orm
  db: Db
  redis: Redis
  keys: StreamKeys
  leaseMs: number
  maxAttempts: number
  codehost: CodehostPlugin | undefined
}

/** CI is read back for this long after delivery; then whatever it says stays. */
const CI_WATCH_MS = 24 * 60 * 60 * 1000

export async function sweepFixes(options: FixSweepOptions, now = Date.now()): Promise<{ redispatched: number; stopped: number }> {
  const em = options.orm.em.fork() as EntityManager
  const lapsed = await em.find(Fix, { state: { $in: [...FIX_ACTIVE_STATES] }, leaseUntil: { $lt: new Date(now) } }, { limit: 100 })
  let redispatched = 0
  let stops = 0
  for (const row of lapsed) {
    if (row.attempts >= options.maxAttempts) {
      try {
        const claim = await claimFix(options.orm, row.id, options.leaseMs, { countAttempt: false })
        if (claim.status !== 'claimed') continue
        await claim.record.finish(stopped('lease_lost', `No worker finished the fix in ${row.attempts} attempts; the last one stopped renewing its lease.`), 0)
        stops++
      } catch (error) {
        if (!(error instanceof RunTakenOver)) throw error
      }
      continue
    }
    try {
      await em.transactional(async (tx) => {
        const held = tx.merge(row)
        held.state = 'queued'
        held.leaseUntil = new Date(now + options.leaseMs)
        await tx.flush()
        await setIssueStatus(tx, held.issueId, 'investigated', '', '')
      })
    } catch (error) {
      if (error instanceof OptimisticLockError) continue
      throw error
    }
    await dispatchFix(options.redis, options.keys, row.id)
    redispatched++
  }
  return { redispatched, stopped: stops }
}

/** Reads the repository CI of delivered fixes whose CI has not settled; answers how many it read. */
export async function readFixCi(options: FixSweepOptions, now = Date.now()): Promise<number> {
  const pullRequests = options.codehost?.pullRequests
  if (!pullRequests) return 0
  const em = options.orm.em.fork() as EntityManager
  const open = await em.find(Fix, { state: { $in: ['pr_draft', 'pr_created'] }, ciState: { $in: ['', 'pending', 'none'] }, finishedAt: { $gt: new Date(now - CI_WATCH_MS) } }, { limit: 50 })
  if (open.length === 0) return 0
  const { rows } = await options.db.query<{ id: string; codehost_installation_id: string }>('SELECT id, codehost_installation_id FROM projects WHERE id = ANY($1)', [[...new Set(open.map((fix) => fix.projectId))]])
  const installations = new Map(rows.map((row) => [row.id, row.codehost_installation_id]))
  let read = 0
  for (const fix of open) {
    const ci = await pullRequests.ci(fix.repo, installations.get(fix.projectId) ?? '', fix.headSha).catch(() => undefined)
    if (!ci) continue
    // Not through the optimistic lock: CI is an observation, and a late one may overwrite an older one.
    await options.db.query('UPDATE fixes SET ci_state = $2, ci_checked_at = now() WHERE id = $1', [fix.id, ci.state])
    read++
  }
  return read
}
