/**
 * What the matcher shows on the worker's /health: each fleet-wide cap with the jobs running under
 * it (paused at 0), the embeddings model, a project's daily checks, and the friction jobs pending,
 * claimed and failed by kind.
 */
import type { Queryable } from '../../shared/db/index.js'
import type { FrictionLimits } from '../../shared/config/friction.js'
import { FRICTION_JOB_KINDS } from './dispatch.js'

export interface HealthSources {
  db: Queryable
  limits: FrictionLimits
  slots: { match: { running(): Promise<number> }; confirm: { running(): Promise<number> } }
  /** The embeddings model, or undefined without embeddings. */
  model: string | undefined
}

/** The matcher's /health lines. */
export async function matcherHealth(sources: HealthSources): Promise<string[]> {
  const { limits } = sources
  const paused = (max: number, name: string): string => (max === 0 ? ` (paused: ${name}=0)` : '')
  const { rows } = await sources.db.query<{ kind: string; state: string; n: number }>(
    `SELECT kind, state, count(*)::int AS n FROM friction_jobs WHERE state IN ('pending', 'claimed', 'failed') GROUP BY kind, state`,
  )
  const count = (kind: string, state: string): number => rows.find((row) => row.kind === kind && row.state === state)?.n ?? 0
  return [
    `friction match: running=${await sources.slots.match.running()} max_concurrent=${limits.matchMaxConcurrent}${paused(limits.matchMaxConcurrent, 'FRICTION_MATCH_MAX_CONCURRENT')} embeddings=${sources.model ?? 'none'}`,
    `friction confirm: running=${await sources.slots.confirm.running()} max_concurrent=${limits.confirmMaxConcurrent}${paused(limits.confirmMaxConcurrent, 'FRICTION_CONFIRM_MAX_CONCURRENT')} checks_per_project_day=${limits.projectDailyChecks}`,
    ...FRICTION_JOB_KINDS.map((kind) => `friction_jobs ${kind}: pending=${count(kind, 'pending')} claimed=${count(kind, 'claimed')} failed=${count(kind, 'failed')}`),
  ]
}
