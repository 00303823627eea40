/**
 * The fix as a kind of leased job (shared/jobs/), beside the investigation: its rows, its claim and
 * end, what it needs before it starts (a stop at once without a model, code-host write access or a
 * sandbox template; the root cause it follows), and its work (build.ts: the conversation in a
 * sandbox, the executed evidence, the review and the delivery). Fixes share the investigations'
 * fleet slots and the project's daily token budget.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Redis } from 'ioredis'
import type { InvestigationLimits } from '../../../shared/config/index.js'
import type { Db } from '../../../shared/db/index.js'
import type { JobKind } from '../../../shared/jobs/index.js'
import type { Orm } from '../../../shared/db/orm.js'
import type { SandboxPlugin } from '../../../shared/plugins/types.js'
import type { StreamKeys } from '../../../shared/redis.js'
import { dispatchFix } from '../dispatch.js'
import { failureCode, STOPS, type StopCode } from '../stops.js'
import { Fix, FIX_ACTIVE_STATES } from '../store/fix-entities.js'
import { claimFix, type FixEnd, type FixRecord } from '../store/fix-record.js'
import { setIssueStatus } from '../store/grouper-issues.js'
import { projectTokenBudget } from '../store/usage.js'
import type { Tools } from '../tools.js'
import { buildFix } from './build.js'
import type { EvidenceLimits } from './evidence.js'
import { loadFixSubject, type FixSubject } from './subject.js'

export interface FixJobDeps {
  db: Db
  orm: Orm
  redis: Redis
  keys: StreamKeys
  tools: Tools
  sandboxes: SandboxPlugin | undefined
  template: string | undefined
  evidenceLimits: EvidenceLimits
  limits: InvestigationLimits
  /** The dashboard's address, for links to the issue. */
  publicUrl: string
}

/** The end of a fix that stops with code. */
export function stopped(code: StopCode, message: string): FixEnd {
  return { kind: 'stopped', reasonCode: code, reasonMessage: message, remediation: STOPS[code] }
}

/** What is missing before any work starts, or undefined. */
function preflight(deps: FixJobDeps): FixEnd | undefined {
  if (!deps.tools.model) return stopped('missing_model_key', 'No model is configured: MODEL_API_KEY is not set on the worker.')
  if (!deps.tools.codehost?.repositories || !deps.tools.codehost.pullRequests) return stopped('codehost_not_connected', 'The workers cannot push fixes: neither CODEHOST_TOKEN nor a code-host app is configured.')
  if (!deps.template || !deps.sandboxes) return stopped('sandbox_template_missing', 'SVC_SANDBOX_JAVASCRIPT_TEMPLATE is not set on the worker, so no sandbox job can start.')
  return undefined
}

/** The fix kind of job, for the runner and the sweeper. */
export function fixJob(deps: FixJobDeps): JobKind<Fix, FixRecord, FixSubject, FixEnd> {
  return {
    what: 'fix',
    entity: Fix,
    activeStates: FIX_ACTIVE_STATES,
    runningState: 'fixing',
    claim: claimFix,
    stopped: (code, message) => stopped(code as StopCode, message),
    async prepare(row) {
      const early = preflight(deps)
      if (early) return { end: early }
      const subject = await loadFixSubject(deps.db, deps.orm, row)
      return subject ? { subject } : { end: stopped('fix_failed', 'The investigation this fix follows is gone.') }
    },
    work(record, subject, grant, signal) {
      const budgets = { maxTurns: deps.limits.maxTurns, maxTokens: Math.min(deps.limits.maxTokens, grant.remainingTokens), deadline: grant.startedAt + deps.limits.maxRunMs }
      const issueUrl = `${deps.publicUrl.replace(/\/+$/, '')}/projects/${record.fix.projectId}/issues/${record.fix.issueId}`
      const context = { orm: deps.orm, model: deps.tools.model!, codehost: deps.tools.codehost!, sandboxes: deps.sandboxes!, template: deps.template, limits: deps.evidenceLimits, issueUrl }
      return buildFix(context, subject, record, budgets, signal)
    },
    requeued: (tx: EntityManager, row) => setIssueStatus(tx, row.issueId, 'investigated', '', ''),
    dispatch: (id) => dispatchFix(deps.redis, deps.keys, id),
    failureCode: (error) => failureCode(error, 'fix_failed'),
    budget: projectTokenBudget(deps.orm, deps.limits.projectDailyTokens, stopped),
  }
}
