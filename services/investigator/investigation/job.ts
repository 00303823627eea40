/**
 * The investigation as a kind of leased job (shared/jobs/): its rows, its claim and outcome, what
 * it needs before it starts (the subject; a stop at once without a model, a repository or app
 * frames), and its work (investigate.ts) under the run's budgets. An investigated outcome queues its
 * fix in the finish's transaction; the fix is dispatched once that committed.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Redis } from 'ioredis'
import type { InvestigationLimits } from '../../../shared/config/index.js'
import type { Db } from '../../../shared/db/index.js'
import type { JobKind } from '../../../shared/jobs/index.js'
import type { Logger } from '../../../shared/log.js'
import type { Orm } from '../../../shared/db/orm.js'
import type { StreamKeys } from '../../../shared/redis.js'
import { dispatchFix, dispatchInvestigation } from '../dispatch.js'
import { failureCode, stop, type StopCode } from '../stops.js'
import { ACTIVE_STATES, Investigation } from '../store/entities.js'
import { setIssueStatus } from '../store/grouper-issues.js'
import { claimRun, type OutcomeRecord, type RunRecord } from '../store/run-record.js'
import { projectTokenBudget } from '../store/usage.js'
import type { Tools } from '../tools.js'
import { investigate, modelPreflight, preflight } from './investigate.js'
import { loadSubject, type Subject } from './subject.js'

export interface InvestigationJobDeps {
  db: Db
  orm: Orm
  redis: Redis
  keys: StreamKeys
  tools: Tools
  limits: InvestigationLimits
  log: Logger
}

/** The investigation kind of job, for the runner and the sweeper. */
export function investigationJob(deps: InvestigationJobDeps): JobKind<Investigation, RunRecord, Subject, OutcomeRecord> {
  return {
    what: 'investigation',
    entity: Investigation,
    activeStates: ACTIVE_STATES,
    runningState: 'analyzing',
    claim: claimRun,
    stopped: (code, message) => stop(code as StopCode, message),
    async prepare(row) {
      // Without a model every run stops at once: nothing of the issue needs reading for that.
      const noModel = modelPreflight(deps.tools)
      if (noModel) return { end: noModel }
      const subject = await loadSubject(deps.db, row.issueId)
      if (!subject) return undefined
      const early = preflight(subject, deps.tools)
      return early ? { end: early } : { subject }
    },
    work: (record, subject, grant, signal) =>
      investigate(subject, { model: deps.tools.model!, codehost: deps.tools.codehost! }, { maxTurns: deps.limits.maxTurns, maxTokens: Math.min(deps.limits.maxTokens, grant.remainingTokens), deadline: grant.startedAt + deps.limits.maxRunMs }, record, signal),
    async afterFinish(record) {
      if (record.queuedFix) await dispatchFix(deps.redis, deps.keys, record.queuedFix).catch((error: unknown) => deps.log.warn('fix dispatch failed; the sweeper dispatches it', { error }))
    },
    requeued: (tx: EntityManager, row) => setIssueStatus(tx, row.issueId, 'queued', '', ''),
    dispatch: (id) => dispatchInvestigation(deps.redis, deps.keys, id),
    failureCode: (error) => failureCode(error, 'investigation_failed'),
    budget: projectTokenBudget(deps.orm, deps.limits.projectDailyTokens, stop),
  }
}
