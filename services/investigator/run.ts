/**
 * The handler of one dispatched investigation. Order: a preflight that stops at once when something
 * is missing (no slot needed); a fleet slot (waiting while the fleet is full or paused, the queued
 * row's lease kept alive); the claim (analyzing); the project's daily budget; the investigation. A
 * worker that dies leaves the row's lease to lapse: the sweeper dispatches it again, and the next
 * claim starts it over. Whatever happens, the row ends with exactly one outcome.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Db } from '../../shared/db.js'
import type { InvestigationLimits } from '../../shared/config.js'
import type { Logger } from '../../shared/log.js'
import type { Orm } from '../../shared/orm.js'
import { sleep, SECOND } from '../../shared/time.js'
import { investigate, preflight, type Tools } from './investigate.js'
import { settleRunError } from './run-failure.js'
import type { InvestigationSlots } from './slots.js'
import { Stop, stop, type StopCode } from './stops.js'
import { Investigation } from './store/entities.js'
import { claimRun, RunTakenOver, type OutcomeRecord, type RunRecord } from './store/run-record.js'
import { tokensUsedToday } from './store/usage.js'
import { loadSubject } from './subject.js'

export interface RunDeps {
  db: Db
  orm: Orm
  tools: Tools
  slots: InvestigationSlots
  limits: InvestigationLimits
  log: Logger
  /** Names this process's slot holds. */
  holder: string
  /** Aborted when this process stops. */
  stopping: AbortSignal
  /** Dispatches a fix queued by an investigated outcome (the sweeper does, if this is lost). */
  dispatchFix(fixId: string): Promise<void>
}

/** How often a waiting handler asks for a slot. */
const SLOT_POLL = 1 * SECOND

/** Takes one investigation to its outcome, or leaves it to another worker; throws only for the stream to retry. */
export async function runInvestigation(deps: RunDeps, investigationId: string, attempt: number, maxAttempts: number, signal: AbortSignal): Promise<void> {
  const em = deps.orm.em.fork() as EntityManager
  const row = await em.findOne(Investigation, investigationId)
  if (!row || !['queued', 'analyzing'].includes(row.state)) return
  // Another worker holds it and renews its lease: this delivery is a duplicate.
  if (row.state === 'analyzing' && row.leaseUntil.getTime() > Date.now()) return
  const subject = await loadSubject(deps.db, row.issueId)
  if (!subject) return
  const early = preflight(subject, deps.tools)
  if (early) return finishWith(deps, investigationId, early)

  const holder = `${deps.holder}:${investigationId}`
  if (!(await waitForSlot(deps, em, row, holder, signal))) return
  const slotKeeper = setInterval(() => void deps.slots.renew(holder).catch(() => undefined), deps.limits.leaseMs / 3)
  let record: RunRecord | undefined
  try {
    const claim = await claimRun(deps.orm, investigationId, deps.limits.leaseMs, { maxAttempts })
    if (claim.status !== 'claimed') return
    record = claim.record
    const used = await tokensUsedToday(deps.orm, subject.issue.projectId)
    if (used >= deps.limits.projectDailyTokens) {
      return await record.finish(stop('budget_exhausted', `The project's investigations used ${used} of ${deps.limits.projectDailyTokens} model tokens today (UTC).`), 0)
    }
    const started = Date.now()
    const leaseKeeper = setInterval(() => void record!.renew().catch(() => undefined), deps.limits.leaseMs / 3)
    try {
      const budgets = { maxTurns: deps.limits.maxTurns, maxTokens: Math.min(deps.limits.maxTokens, deps.limits.projectDailyTokens - used), deadline: started + deps.limits.maxRunMs }
      const outcome = await investigate(subject, { model: deps.tools.model!, codehost: deps.tools.codehost! }, budgets, record, signal)
      await record.finish(outcome, Date.now() - started)
      if (record.queuedFix) await deps.dispatchFix(record.queuedFix).catch((error: unknown) => deps.log.warn('fix dispatch failed; the sweeper dispatches it', { error }))
    } catch (error) {
      if (error instanceof Stop) return await record.finish(stop(error.code, error.message), Date.now() - started)
      throw error
    } finally {
      clearInterval(leaseKeeper)
    }
  } catch (error) {
    const stopWith = (code: StopCode, message: string) => (record ? record.finish(stop(code, message), 0) : finishWith(deps, investigationId, stop(code, message)))
    await settleRunError(error, { signal, stopping: deps.stopping, attempt, maxAttempts, record, failedCode: 'investigation_failed', stopWith, log: deps.log, what: 'investigation', id: investigationId })
  } finally {
    clearInterval(slotKeeper)
    await deps.slots.release(holder).catch(() => undefined)
  }
}

/** Waits for a fleet slot, keeping the queued job row's lease alive (investigations and fixes); false when the run should not go on. */
export async function waitForSlot(deps: Pick<RunDeps, 'slots' | 'limits'>, em: EntityManager, row: { leaseUntil: Date }, holder: string, signal: AbortSignal): Promise<boolean> {
  let lastRenewal = Date.now()
  while (!(await deps.slots.tryAcquire(holder))) {
    if (signal.aborted) return false
    if (Date.now() - lastRenewal >= deps.limits.leaseMs / 3) {
      lastRenewal = Date.now()
      row.leaseUntil = new Date(Date.now() + deps.limits.leaseMs)
      try {
        await em.flush()
      } catch {
        return false // the row moved on (a person stopped it, or another worker claimed it)
      }
    }
    await sleep(SLOT_POLL, signal)
  }
  return true
}

/** Claims and finishes at once: a stop decided before any work. */
async function finishWith(deps: RunDeps, investigationId: string, outcome: OutcomeRecord): Promise<void> {
  try {
    const claim = await claimRun(deps.orm, investigationId, deps.limits.leaseMs)
    if (claim.status === 'claimed') await claim.record.finish(outcome, 0)
  } catch (error) {
    if (!(error instanceof RunTakenOver)) throw error
  }
}
