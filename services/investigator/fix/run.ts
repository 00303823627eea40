/**
 * The handler of one dispatched fix, shaped like an investigation's run: a preflight that stops at
 * once when something is missing (model, code host write access, sandbox template), a fleet slot
 * (fixes share INVESTIGATION_MAX_CONCURRENT with investigations), the claim (fixing), the build and
 * delivery. An outage is retried by the stream; a stopping worker hands the fix back.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Db } from '../../../shared/db.js'
import type { InvestigationLimits } from '../../../shared/config.js'
import type { Logger } from '../../../shared/log.js'
import type { Orm } from '../../../shared/orm.js'
import type { SandboxPlugin } from '../../../shared/plugins/types.js'
import type { Tools } from '../investigate.js'
import { settleRunError } from '../run-failure.js'
import { waitForSlot } from '../run.js'
import type { InvestigationSlots } from '../slots.js'
import { Stop, STOPS, type StopCode } from '../stops.js'
import { Fix } from '../store/fix-entities.js'
import { claimFix, RunTakenOver, type FixEnd, type FixRecord } from '../store/fix-record.js'
import { tokensUsedToday } from '../store/usage.js'
import { buildFix } from './build.js'
import type { EvidenceLimits } from './evidence.js'
import { loadFixSubject } from './subject.js'

export interface FixDeps {
  db: Db
  orm: Orm
  tools: Tools
  sandboxes: SandboxPlugin | undefined
  template: string | undefined
  evidenceLimits: EvidenceLimits
  slots: InvestigationSlots
  limits: InvestigationLimits
  log: Logger
  holder: string
  stopping: AbortSignal
  /** The dashboard's address, for links to the issue. */
  publicUrl: string
}

export function stopped(code: StopCode, message: string): FixEnd {
  return { kind: 'stopped', reasonCode: code, reasonMessage: message, remediation: STOPS[code] }
}

/** What is missing before any work starts, or undefined. */
function preflight(deps: FixDeps): FixEnd | undefined {
  if (!deps.tools.model) return stopped('missing_model_key', 'No model is configured: MODEL_API_KEY is not set on the worker.')
  if (!deps.tools.codehost?.repositories || !deps.tools.codehost.pullRequests) return stopped('codehost_not_connected', 'The workers cannot push fixes: neither CODEHOST_TOKEN nor a code-host app is configured.')
  if (!deps.template || !deps.sandboxes) return stopped('sandbox_template_missing', 'SVC_SANDBOX_JAVASCRIPT_TEMPLATE is not set on the worker, so no sandbox job can start.')
  return undefined
}

export async function runFix(deps: FixDeps, fixId: string, attempt: number, maxAttempts: number, signal: AbortSignal): Promise<void> {
  const em = deps.orm.em.fork() as EntityManager
  const row = await em.findOne(Fix, fixId)
  if (!row || !['queued', 'fixing'].includes(row.state)) return
  if (row.state === 'fixing' && row.leaseUntil.getTime() > Date.now()) return
  const early = preflight(deps)
  if (early) return finishAtOnce(deps, fixId, early)
  const subject = await loadFixSubject(deps.db, deps.orm, row)
  if (!subject) return finishAtOnce(deps, fixId, stopped('fix_failed', 'The investigation this fix follows is gone.'))

  const holder = `${deps.holder}:fix:${fixId}`
  if (!(await waitForSlot(deps, em, row, holder, signal))) return
  const slotKeeper = setInterval(() => void deps.slots.renew(holder).catch(() => undefined), deps.limits.leaseMs / 3)
  let record: FixRecord | undefined
  const started = Date.now()
  try {
    const claim = await claimFix(deps.orm, fixId, deps.limits.leaseMs, { maxAttempts })
    if (claim.status !== 'claimed') return
    record = claim.record
    const used = await tokensUsedToday(deps.orm, row.projectId)
    if (used >= deps.limits.projectDailyTokens) return await record.finish(stopped('budget_exhausted', `The project's investigations and fixes used ${used} of ${deps.limits.projectDailyTokens} model tokens today (UTC).`), 0)
    const leaseKeeper = setInterval(() => void record!.renew().catch(() => undefined), deps.limits.leaseMs / 3)
    try {
      const budgets = { maxTurns: deps.limits.maxTurns, maxTokens: Math.min(deps.limits.maxTokens, deps.limits.projectDailyTokens - used), deadline: started + deps.limits.maxRunMs }
      const context = { orm: deps.orm, model: deps.tools.model!, codehost: deps.tools.codehost!, sandboxes: deps.sandboxes!, template: deps.template, limits: deps.evidenceLimits, issueUrl: `${deps.publicUrl.replace(/\/+$/, '')}/projects/${row.projectId}/issues/${row.issueId}` }
      await record.finish(await buildFix(context, subject, record, budgets, signal), Date.now() - started)
    } catch (error) {
      if (error instanceof Stop) return await record.finish(stopped(error.code, error.message), Date.now() - started)
      throw error
    } finally {
      clearInterval(leaseKeeper)
    }
  } catch (error) {
    const stopWith = (code: StopCode, message: string) => (record ? record.finish(stopped(code, message), Date.now() - started) : finishAtOnce(deps, fixId, stopped(code, message)))
    await settleRunError(error, { signal, stopping: deps.stopping, attempt, maxAttempts, record, failedCode: 'fix_failed', stopWith, log: deps.log, what: 'fix', id: fixId })
  } finally {
    clearInterval(slotKeeper)
    await deps.slots.release(holder).catch(() => undefined)
  }
}

/** Claims and finishes at once: a stop decided before any work. */
async function finishAtOnce(deps: FixDeps, fixId: string, end: FixEnd): Promise<void> {
  try {
    const claim = await claimFix(deps.orm, fixId, deps.limits.leaseMs)
    if (claim.status === 'claimed') await claim.record.finish(end, 0)
  } catch (error) {
    if (!(error instanceof RunTakenOver)) throw error
  }
}
