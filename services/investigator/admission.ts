/**
 * Admission: the grouper says which issues gained events (the issue-changes stream, after each
 * commit); this decides which of them an investigation starts for. An error issue qualifies when
 * INVESTIGATION_MIN_USERS distinct users, or as many distinct sessions, saw it within the window.
 * One investigation per episode: the first when it qualifies; another only when it regresses after
 * its cause was found (it comes back in a release the investigation did not look at) or when a
 * person asks again. Whether its stack is in the repository is the run's first check (it needs
 * the clone), which stops with no_app_frames otherwise.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Redis } from 'ioredis'
import type { InvestigationLimits } from '../../shared/config.js'
import type { Db } from '../../shared/db.js'
import type { IssueChange } from '../../shared/issue-changes.js'
import type { Orm } from '../../shared/orm.js'
import type { StreamKeys } from '../../shared/redis.js'
import { startInvestigation } from './dispatch.js'
import { latestInvestigation } from './store/admissions.js'

export interface AdmissionDeps {
  db: Db
  orm: Orm
  redis: Redis
  keys: StreamKeys
  limits: InvestigationLimits
}

/** Admits what qualifies among changes; answers the investigations started. */
export async function admit(deps: AdmissionDeps, changes: readonly IssueChange[]): Promise<string[]> {
  const releases = new Map<string, Set<string>>()
  for (const change of changes) {
    const set = releases.get(change.issueId) ?? new Set<string>()
    for (const release of change.releases) set.add(release)
    releases.set(change.issueId, set)
  }
  const qualifying = await qualifyingIssues(deps, [...releases.keys()])
  const started: string[] = []
  for (const issue of qualifying) {
    const trigger = await triggerFor(deps, issue.id, releases.get(issue.id)!)
    if (!trigger) continue
    const investigation = await startInvestigation(deps.orm, deps.redis, deps.keys, { issueId: issue.id, projectId: issue.projectId, trigger, leaseMs: deps.limits.leaseMs })
    if (investigation) started.push(investigation.id)
  }
  return started
}

/** Error issues (not noise) with enough distinct users or sessions within the window. */
async function qualifyingIssues(deps: AdmissionDeps, issueIds: string[]): Promise<Array<{ id: string; projectId: string }>> {
  if (issueIds.length === 0) return []
  const { rows } = await deps.db.query<{ id: string; project_id: string }>(
    `SELECT i.id, i.project_id FROM issues i
      WHERE i.id = ANY($1::uuid[]) AND i.kind = 'error' AND i.noise = ''
        AND GREATEST(
          (SELECT count(*) FROM issue_actors a WHERE a.issue_id = i.id AND a.actor_kind = 'u' AND a.last_seen > now() - $2 * interval '1 millisecond'),
          (SELECT count(*) FROM issue_actors a WHERE a.issue_id = i.id AND a.actor_kind = 's' AND a.last_seen > now() - $2 * interval '1 millisecond')
        ) >= $3`,
    [issueIds, deps.limits.windowMs, deps.limits.minActors],
  )
  return rows.map((row) => ({ id: row.id, projectId: row.project_id }))
}

/** auto for an issue never investigated, regression for one that came back, else undefined. */
async function triggerFor(deps: AdmissionDeps, issueId: string, releases: Set<string>): Promise<'auto' | 'regression' | undefined> {
  const latest = await latestInvestigation(deps.orm.em.fork() as EntityManager, issueId)
  if (!latest) return 'auto'
  const { investigation, outcome } = latest
  if (!outcome || outcome.kind !== 'investigated' || !investigation.finishedAt) return undefined
  const newer = [...releases].filter((release) => release !== investigation.release)
  if (newer.length === 0) return undefined
  // A release counts as new when this issue's first event in it arrived after the outcome.
  const { rows } = await deps.db.query<{ n: string }>(
    `SELECT count(*) AS n FROM unnest($2::text[]) AS r(release)
      WHERE (SELECT min(e.received_at) FROM events e WHERE e.issue_id = $1 AND e.release = r.release) > $3`,
    [issueId, newer, investigation.finishedAt],
  )
  return Number(rows[0]?.n ?? 0) > 0 ? 'regression' : undefined
}
