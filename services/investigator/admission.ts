/**
 * Admission: the grouper says which issues gained events (the issue-changes stream, after each
 * commit); this decides which of them an investigation starts for (spec, Events 1). An error issue
 * qualifies when INVESTIGATION_MIN_USERS distinct real users, or as many real sessions, ran into it
 * within the window by their events' own timestamps (services/grouper/real-user.ts says which
 * count), and its stack comes from the attached repository's code (app-code.ts). One
 * investigation per episode: the first when it qualifies; another only when it regresses after its
 * cause was found (it comes back in a release the investigation did not look at) or when a person
 * asks again. An issue not admitted keeps status new, and a note says why (admission-verdict.ts).
 * A resolved, ignored or merged issue is never admitted (docs/issues.md): a resolved one comes
 * back only as a regression, which the grouper reopens before its change reaches here.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Redis } from 'ioredis'
import type { InvestigationLimits } from '../../shared/config/index.js'
import type { Db } from '../../shared/db/index.js'
import type { IssueChange } from '../../shared/domain/issue-changes.js'
import type { Orm } from '../../shared/db/orm.js'
import type { StreamKeys } from '../../shared/redis.js'
import { actorsNote, appCodeNote, type ActorCounts } from './admission-verdict.js'
import type { AppCodeCheck } from './app-code.js'
import { startInvestigations } from './dispatch.js'
import { writeAdmissionNotes, type AdmissionNote } from './store/admission-notes.js'
import type { AdmitRequest } from './store/admissions.js'

export interface AdmissionDeps {
  db: Db
  orm: Orm
  redis: Redis
  keys: StreamKeys
  limits: InvestigationLimits
  appCode: AppCodeCheck
}

/** Admits what qualifies among changes, notes why the rest was not; answers the investigations started. */
export async function admit(deps: AdmissionDeps, changes: readonly IssueChange[]): Promise<string[]> {
  const releases = new Map<string, Set<string>>()
  for (const change of changes) {
    const set = releases.get(change.issueId) ?? new Set<string>()
    for (const release of change.releases) set.add(release)
    releases.set(change.issueId, set)
  }
  // An issue whose latest investigation did not find the cause in the code waits for a person
  // (Investigate again): nothing the stream says can start another, so it is not counted at all.
  const latest = await latestOutcomes(deps.orm.em.fork() as EntityManager, [...releases.keys()])
  const open = [...releases.keys()].filter((id) => mayStart(latest.get(id), releases.get(id)!))
  const { qualifying, notes } = await sortIssues(deps, open)
  const admitted: AdmitRequest[] = []
  for (const issue of qualifying) {
    const trigger = await triggerFor(deps, issue.id, latest.get(issue.id), releases.get(issue.id)!)
    if (!trigger) continue
    const code = await deps.appCode.check(issue.id)
    if (!code.ok) {
      notes.set(issue.id, appCodeNote(code.message))
      continue
    }
    admitted.push({ issueId: issue.id, projectId: issue.projectId, trigger, leaseMs: deps.limits.leaseMs })
  }
  const started = await startInvestigations(deps.orm, deps.redis, deps.keys, admitted)
  await writeAdmissionNotes(deps.orm.em.fork() as EntityManager, notes, admitted.map((request) => request.issueId))
  return started.map((investigation) => investigation.id)
}

/**
 * Error issues with enough recent real users or sessions (counted up to the threshold only, so a
 * busy issue costs no more than a quiet one), and a note for every other error issue. Noise never
 * reaches admission (the grouper sends no change for it); its page says so from the issue itself.
 */
async function sortIssues(deps: AdmissionDeps, issueIds: string[]): Promise<{ qualifying: Array<{ id: string; projectId: string }>; notes: Map<string, AdmissionNote> }> {
  const notes = new Map<string, AdmissionNote>()
  if (issueIds.length === 0) return { qualifying: [], notes }
  const recent = (kind: 'u' | 's') =>
    `(SELECT count(*) FROM (SELECT 1 FROM issue_actors a WHERE a.issue_id = i.id AND a.actor_kind = '${kind}' AND a.real_seen_at > now() - $2 * interval '1 millisecond' LIMIT $3) x)`
  const { rows } = await deps.db.query<{ id: string; project_id: string; noise: string; recent: number }>(
    `SELECT i.id, i.project_id, i.noise, GREATEST(${recent('u')}, ${recent('s')})::int AS recent FROM issues i WHERE i.id = ANY($1::uuid[]) AND i.kind = 'error' AND i.triage = 'open' AND i.merged_into IS NULL`,
    [issueIds, deps.limits.windowMs, deps.limits.minActors],
  )
  const qualifying = rows.filter((row) => row.noise === '' && row.recent >= deps.limits.minActors).map((row) => ({ id: row.id, projectId: row.project_id }))
  const short = rows.filter((row) => row.noise === '' && row.recent < deps.limits.minActors)
  for (const [id, counts] of await countActors(deps, short.map((row) => ({ id: row.id, recent: row.recent })))) notes.set(id, actorsNote(counts, deps.limits))
  return { qualifying, notes }
}

/** The actor counts behind the note of each issue that fell short. */
async function countActors(deps: AdmissionDeps, issues: Array<{ id: string; recent: number }>): Promise<Map<string, ActorCounts>> {
  const counts = new Map<string, ActorCounts>(issues.map(({ id, recent }) => [id, { recent, real: 0, total: 0, automated: false, ahead: false }]))
  if (issues.length === 0) return counts
  const { rows } = await deps.db.query<{ issue_id: string; real: number; total: number; automated: boolean; ahead: boolean }>(
    `SELECT issue_id,
            GREATEST(count(*) FILTER (WHERE actor_kind = 'u' AND real_seen_at IS NOT NULL), count(*) FILTER (WHERE actor_kind = 's' AND real_seen_at IS NOT NULL))::int AS real,
            GREATEST(count(*) FILTER (WHERE actor_kind = 'u'), count(*) FILTER (WHERE actor_kind = 's'))::int AS total,
            bool_or(seen_kinds & 2 <> 0) AS automated, bool_or(seen_kinds & 4 <> 0) AS ahead
       FROM issue_actors WHERE issue_id = ANY($1::uuid[]) GROUP BY issue_id`,
    [issues.map((issue) => issue.id)],
  )
  for (const row of rows) Object.assign(counts.get(row.issue_id)!, { real: row.real, total: row.total, automated: row.automated, ahead: row.ahead })
  return counts
}

/** What admission needs of an issue's latest investigation. */
interface LatestOutcome {
  outcome: string | null
  release: string | null
  finishedAt: Date | null
}

/**
 * The latest investigation of each issue with its outcome, in one query for the whole batch: a busy
 * stream changes the same issues batch after batch, and asking per issue cost the drain half its speed.
 */
async function latestOutcomes(em: EntityManager, issueIds: string[]): Promise<Map<string, LatestOutcome>> {
  if (issueIds.length === 0) return new Map()
  // The ids travel as one JSON text: the ORM's raw bindings would spread a JS array into a list.
  const rows = await em.execute<Array<{ issue_id: string; outcome: string | null; release: string | null; finished_at: Date | string | null }>>(
    `SELECT DISTINCT ON (v.issue_id) v.issue_id, o.kind AS outcome, v.release, v.finished_at
       FROM investigations v LEFT JOIN investigation_outcomes o ON o.investigation_id = v.id
      WHERE v.issue_id IN (SELECT jsonb_array_elements_text(?::jsonb)::uuid)
      ORDER BY v.issue_id, v.episode DESC`,
    [JSON.stringify(issueIds)],
  )
  return new Map(rows.map((row) => [row.issue_id, { outcome: row.outcome, release: row.release, finishedAt: row.finished_at === null ? null : new Date(row.finished_at) }]))
}

/** Whether the stream may start an investigation of the issue: never investigated, or its cause found and a release named that it did not look at. */
function mayStart(latest: LatestOutcome | undefined, releases: Set<string>): boolean {
  if (!latest) return true
  return latest.outcome === 'investigated' && latest.finishedAt !== null && [...releases].some((release) => release !== latest.release)
}

/** auto for an issue never investigated, regression for one that came back, else undefined. */
async function triggerFor(deps: AdmissionDeps, issueId: string, latest: LatestOutcome | undefined, releases: Set<string>): Promise<'auto' | 'regression' | undefined> {
  if (!latest) return 'auto'
  if (latest.outcome !== 'investigated' || !latest.finishedAt) return undefined
  const newer = [...releases].filter((release) => release !== latest.release)
  if (newer.length === 0) return undefined
  // A release counts as new when this issue's first event in it arrived after the outcome.
  const { rows } = await deps.db.query<{ n: string }>(
    `SELECT count(*) AS n FROM unnest($2::text[]) AS r(release)
      WHERE (SELECT min(e.received_at) FROM events e WHERE e.issue_id = $1 AND e.release = r.release) > $3`,
    [issueId, newer, latest.finishedAt],
  )
  return Number(rows[0]?.n ?? 0) > 0 ? 'regression' : undefined
}
