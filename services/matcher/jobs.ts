/**
 * The matcher's three kinds of leased job over friction_jobs (shared/jobs/): scan a recording,
 * match a finding, confirm a ticket. Each is the runtime's JobKind; the work is a domain function
 * written elsewhere (scanRecording, matchFinding, confirmTicket), and what the work queued (a
 * scan's match jobs, a decision's confirm job, a confirm's next batch) is dispatched once the job's
 * end committed. A confirm job hands a ticket it left published to the investigator (commands.ts).
 */
import type { FrictionLimits } from '../../shared/config/friction.js'
import { isDatabaseOutage } from '../../shared/db/index.js'
import type { JobActorDeps, JobKind } from '../../shared/jobs/index.js'
import { ObjectStoreUnavailable, type ObjectStore } from '../../shared/object-store.js'
import { EmbeddingsUnavailable } from '../../shared/plugins/embeddings-types.js'
import { handOverPublished } from './commands.js'
import { confirmTicket } from './confirm/index.js'
import { dispatchJob, dispatchJobs, queueConfirm, type FrictionJobKind } from './dispatch.js'
import type { Embedder } from './embeddings/index.js'
import { claimFrictionJob, FRICTION_ACTIVE_STATES, type FrictionEnd, type FrictionJobRecord } from './job-record.js'
import { matchFinding, MatchError } from './match/index.js'
import { countDecision } from './metrics.js'
import { scanRecording } from './scan-due.js'
import { FrictionJob } from './store/entities.js'

export interface FrictionJobDeps extends Omit<JobActorDeps, 'timing'> {
  objects: ObjectStore
  leaseMs: number
  /** The embedder the service started with (undefined: SVC_EMBEDDINGS_PLUGIN=none, or not started). */
  embedder(): Embedder | undefined
  /** The confirm jobs' daily budget a project (FRICTION_PROJECT_DAILY_CHECKS). */
  limits: Pick<FrictionLimits, 'projectDailyChecks'>
}

type FrictionKind = JobKind<FrictionJob, FrictionJobRecord, FrictionJob, FrictionEnd>

const failed = (code: string, message: string): FrictionEnd => ({ state: 'failed', code, message })

/** The stop code of an error on a job's last attempt: what was down, or the kind's own failure. */
export function frictionFailureCode(kind: FrictionJobKind, error: unknown): string {
  if (error instanceof MatchError) return error.code
  if (error instanceof EmbeddingsUnavailable) return 'embeddings_unavailable'
  if (error instanceof ObjectStoreUnavailable) return 'object_store_unavailable'
  if (isDatabaseOutage(error)) return 'database_unavailable'
  return `${kind}_failed`
}

/** The job kind of friction jobs of kind, for the runner and the lapsed-lease sweep. */
export function frictionJobKind(kind: FrictionJobKind, deps: FrictionJobDeps): FrictionKind {
  const work: Record<FrictionJobKind, (row: FrictionJob, signal: AbortSignal) => Promise<FrictionEnd>> = {
    scan: async (row) => {
      const scan = await scanRecording(deps, row.projectId, row.subject, { source: row.source, allowMissingEmbeddings: row.allowMissingEmbeddings })
      return { state: 'completed', queued: scan.status === 'scanned' ? scan.matchJobs : [] }
    },
    match: async (row) => {
      const decision = await matchFinding({ orm: deps.orm }, row.subject, deps.embedder())
      if (!decision || decision.alreadyDecided) return { state: 'completed' }
      countDecision(decision.decision)
      const ticket = decision.ticket
      // Checks start when a ticket first has checksNextAt matched recordings (3, then every 10 more).
      if (!ticket || ticket.matched < ticket.checksNextAt) return { state: 'completed' }
      const confirm = await queueConfirm(deps.db, { projectId: row.projectId, environmentId: row.environmentId, id: ticket.id }, row.source)
      return { state: 'completed', queued: confirm ? [confirm] : [] }
    },
    confirm: async (row) => {
      const outcome = await confirmTicket({ ...deps, dailyBudget: deps.limits.projectDailyChecks }, row.subject)
      // The store down mid-batch: the checks made stay; the job is retried with the runtime's backoff.
      if (outcome.status === 'store_down') throw new ObjectStoreUnavailable(outcome.storeDown ?? 'the object store cannot be read')
      // Published and awaiting approval in a project that investigates known problems at once: handed to the investigator (commands.ts).
      if (outcome.status !== 'gone' && outcome.status !== 'archived') await handOverPublished(deps, row.subject)
      const againAt = outcome.status === 'budget_exhausted' ? outcome.resumeAt : outcome.dueAgain ? new Date() : undefined
      return { state: 'completed', queued: outcome.matchJobs, againAt }
    },
  }
  return {
    what: `friction_${kind}`,
    entity: FrictionJob,
    activeStates: FRICTION_ACTIVE_STATES,
    runningState: 'claimed',
    queuedState: 'pending',
    rows: { kind },
    claim: claimFrictionJob,
    stopped: failed,
    async prepare(row) {
      // An entry of the wrong kind for its row: left for the lapsed-lease sweep to dispatch as what it is.
      if (row.kind !== kind) return undefined
      if (kind === 'match' && !deps.embedder() && !row.allowMissingEmbeddings) {
        return {
          end: failed(
            'embeddings_missing',
            'The worker that ran this match job has no embeddings (SVC_EMBEDDINGS_PLUGIN=none) and the job does not allow matching without them. Configure embeddings on every worker (EMBEDDINGS_API_KEY, or SVC_EMBEDDINGS_PLUGIN=embeddings-local) and schedule it again (svc backfill-tickets), or run the backfill with --allow-missing-embeddings to make every problem its own known problem.',
          ),
        }
      }
      return { subject: row }
    },
    work: (_record, row, _grant, signal) => work[kind](row, signal),
    async afterFinish(record) {
      const queued = [...record.queued]
      // Checks going on (another batch due, or tomorrow's budget): a new confirm job, started by the sweep once due.
      if (record.againAt) {
        const job = record.job
        const again = await queueConfirm(deps.db, { projectId: job.projectId, environmentId: job.environmentId, id: job.subject }, job.source, record.againAt).catch((error: unknown) => {
          deps.log.warn('queueing the next checks of a known problem failed; its next match queues them', { ticket: job.subject, error })
          return undefined
        })
        if (again && record.againAt.getTime() <= Date.now()) queued.push(again)
      }
      await dispatchJobs(deps.db, deps.redis, deps.keys, queued, deps.leaseMs).catch((error: unknown) => deps.log.warn('friction job dispatch failed; the sweeper dispatches them', { error }))
    },
    requeued: async () => undefined,
    dispatch: (id) => dispatchJob(deps.redis, deps.keys, kind, id),
    failureCode: (error) => frictionFailureCode(kind, error),
  }
}
