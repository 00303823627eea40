/**
 * The investigator actor, built on the job runtime (shared/jobs/): admission on the issue-changes
 * stream, the known problems the matcher hands it on stream:published-problems (known-problems.ts),
 * and two kinds of leased jobs, investigations (investigation/) and fixes (fix/), each on its
 * stream, one job at a time per consumer loop (the fleet-wide cap is the runtime's slots), with
 * one periodic sweep for the fleet: lapsed leases of both kinds, the CI of delivered fixes and their
 * pull requests followed to their end (pull-requests/, also told by the code host's webhook) and,
 * once merged, whether each held in production (fix/held.ts). Job
 * state lives in its own tables (MikroORM); Redis carries the dispatch.
 */
import type { InvestigationLimits } from '../../shared/config/index.js'
import { consumeJobs, FleetSlots, JobHost, leasedKind, PeriodicSweeper, sweepLapsed, type JobActorDeps } from '../../shared/jobs/index.js'
import type { SandboxPlugin } from '../../shared/plugins/sandbox-types.js'
import { waitingForDatabase, type HostedService } from '../../shared/service.js'
import type { StreamEntry } from '../../shared/streams/index.js'
import { GROUPS } from '../../shared/topology.js'
import { changesOf } from '../../shared/domain/issue-changes.js'
import { admit } from './admission.js'
import { AppCodeCheck } from './app-code.js'
import { FIX_ENTRY, INVESTIGATION_ENTRY } from './dispatch.js'
import { readFixCi } from './fix/ci-readback.js'
import type { EvidenceLimits } from './fix/evidence.js'
import { judgeHeldFixes } from './fix/held.js'
import { fixJob } from './fix/job.js'
import { investigationJob } from './investigation/job.js'
import { publishedProblems } from './known-problems.js'
import { pollPullRequests } from './pull-requests/poll.js'
import { countStopsFrom, watchSlots } from './metrics.js'
import { STOPS } from './stops.js'
import { usageByProjectToday } from './store/usage.js'
import type { Tools } from './tools.js'

export type { Tools } from './tools.js'
/** The investigator's entities, for the process that opens the ORM it works through. */
export { INVESTIGATOR_ENTITIES } from './store/entities.js'

export interface InvestigatorDeps extends JobActorDeps {
  limits: InvestigationLimits
  tools: Tools
  /** The fix stage: the sandbox plugin and template (SVC_SANDBOX_JAVASCRIPT_TEMPLATE), command limits, and the dashboard's address. */
  fixes: { sandboxes: SandboxPlugin | undefined; template: string | undefined; evidenceLimits: EvidenceLimits; publicUrl: string }
}

/** Creates the investigator service (not yet started). */
export function createInvestigator(deps: InvestigatorDeps): HostedService {
  const log = deps.log.child({ service: 'investigator' })
  countStopsFrom(Object.keys(STOPS))
  const host = new JobHost({ ...deps, log })
  const slots = new FleetSlots(deps.redis, deps.keys.investigationSlots, deps.limits.maxConcurrent, deps.limits.leaseMs)
  const investigations = investigationJob({ ...deps, log })
  const fixes = fixJob({ ...deps, ...deps.fixes })
  const lapsed = { orm: deps.orm, leaseMs: deps.limits.leaseMs, maxAttempts: deps.timing.maxAttempts }
  const sweeper = new PeriodicSweeper({
    redis: deps.redis,
    lockKey: `${deps.keys.investigationSlots}:sweep`,
    everyMs: deps.limits.leaseMs / 2,
    passes: [
      { name: 'lapsed investigations', run: () => sweepLapsed(investigations, lapsed) },
      { name: 'lapsed fixes', run: () => sweepLapsed(fixes, lapsed) },
      { name: 'fix CI', run: () => readFixCi({ orm: deps.orm, db: deps.db, codehost: deps.tools.codehost }) },
      { name: 'fix pull requests', run: () => pollPullRequests({ orm: deps.orm, db: deps.db, codehost: deps.tools.codehost, polling: deps.limits.pullRequests }) },
      { name: 'fix held', run: () => judgeHeldFixes({ db: deps.db, settings: deps.limits.fixHeld }) },
    ],
  })
  sweeper.on('error', (error: unknown) => log.warn('lease sweep failed', { error }))
  const appCode = new AppCodeCheck({ db: deps.db, codehost: deps.tools.codehost, log })
  const admission = host.consumer({
    stream: deps.keys.issueChanges,
    group: GROUPS.admission,
    consumer: `${host.name}-admission`,
    what: 'admission',
    batchSize: 50,
    handler: async (entries: StreamEntry[]) => {
      const started = await admit({ db: deps.db, orm: deps.orm, redis: deps.redis, keys: deps.keys, limits: deps.limits, appCode }, entries.flatMap((entry) => changesOf(entry.fields)))
      if (started.length > 0) log.info('investigations queued', { investigations: started })
    },
  })
  // Investigations and fixes share the fleet's slots and the investigator's lease.
  const runs = { orm: deps.orm, slots, leaseMs: deps.limits.leaseMs, log }
  const consumers = [
    admission,
    ...consumeJobs(host, { stream: deps.keys.investigations, group: GROUPS.investigator, kinds: [leasedKind(investigations, INVESTIGATION_ENTRY, runs)] }),
    ...consumeJobs(host, { stream: deps.keys.fixes, group: GROUPS.fixer, label: 'fixer', kinds: [leasedKind(fixes, FIX_ENTRY, runs)] }),
    ...consumeJobs(host, { stream: deps.keys.publishedProblems, group: GROUPS.published, label: 'published', kinds: [publishedProblems({ ...deps, leaseMs: deps.limits.leaseMs })] }),
  ]
  return host.service({
    name: 'investigator',
    consumers,
    sweeper,
    // The fleet's slots are read for /metrics while this service runs.
    watch: () => watchSlots(slots),
    waitingFor: waitingForDatabase(deps.db),
    details: async () => {
      const usage = await usageByProjectToday(deps.orm)
      const paused = deps.limits.maxConcurrent === 0 ? ' (paused: INVESTIGATION_MAX_CONCURRENT=0)' : ''
      return [
        `investigations: running=${await slots.running()} max_concurrent=${deps.limits.maxConcurrent}${paused} model=${deps.tools.model?.label ?? 'none (MODEL_API_KEY unset)'}`,
        `fixes: sandbox=${deps.fixes.sandboxes?.label ?? 'none'} template=${deps.fixes.template ? 'set' : 'none (SVC_SANDBOX_JAVASCRIPT_TEMPLATE unset: fixes stop with sandbox_template_missing)'}`,
        ...[...usage].map(([project, tokens]) => `investigation_budget ${project}: used=${tokens} daily_tokens=${deps.limits.projectDailyTokens}`),
      ]
    },
  })
}
