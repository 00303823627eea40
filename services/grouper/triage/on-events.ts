/**
 * What a batch's events do to triage (docs/issues.md): an event of a merged issue lands in its
 * target; a resolved issue that gets an event it should not regresses; an ignored issue whose
 * condition is met comes back. Each runs in the batch's transaction, on rows the batch's counter
 * update already holds, so a person's resolve either comes before the batch (and is judged by its
 * events) or after it (and is not undone by them).
 */
import type pg from 'pg'
import { compareReleases } from '../../../shared/domain/releases.js'
import type { KnownIds } from '../../../shared/domain/known-ids.js'
import { CLEARED, writeHistory } from '../commands/triage.js'
import type { Prepared } from '../prepared.js'

const SERVICE = { kind: 'service', id: 'grouper', label: 'the service' } as const

/** The issue each issue key's events land in (its own, or the target it was merged into), and the merged issue each came from. */
export async function routeMerged(client: pg.PoolClient, own: ReadonlyMap<string, string>): Promise<{ ids: Map<string, string>; from: Map<string, string> }> {
  const ids = new Map(own)
  const from = new Map<string, string>()
  if (own.size === 0) return { ids, from }
  const { rows } = await client.query<{ id: string; merged_into: string }>(`SELECT id, merged_into FROM issues WHERE id = ANY($1::uuid[]) AND merged_into IS NOT NULL`, [[...new Set(own.values())]])
  if (rows.length === 0) return { ids, from }
  const target = new Map(rows.map((r) => [r.id, r.merged_into]))
  for (const [key, id] of own) {
    const into = target.get(id)
    if (into === undefined) continue
    ids.set(key, into)
    from.set(key, id)
  }
  return { ids, from }
}

/**
 * Throws when the route routeMerged read no longer holds under the issues' locks (settleSampling
 * reads each issue's merged_into): a merge or its undo committed since, so the batch, whose events
 * would land on the wrong issue, is rolled back, retried and routed again.
 */
export function refuseRerouted(mergedInto: ReadonlyMap<string, string | null>, own: ReadonlyMap<string, string>, ids: ReadonlyMap<string, string>): void {
  for (const [key, id] of own) {
    const routed = ids.get(key)!
    const now = mergedInto.get(id) ?? null
    if (now !== (routed === id ? null : routed)) throw new Error(`issue ${id} was merged or unmerged while this batch stored its events; the batch is retried and routed again`)
  }
}

/**
 * Records the releases and environments the batch's events were seen in (the project's releases,
 * each issue's releases and environments), skipping pairs seen lately; answers the keys to remember
 * once the batch commits.
 */
export async function recordSeen(client: pg.PoolClient, inserted: readonly Prepared[], issueIds: ReadonlyMap<string, string>, environmentIds: ReadonlyMap<string, string>, seen: KnownIds): Promise<Map<string, string>> {
  const releases = new Map<string, [string, string, number]>()
  const issueReleases = new Map<string, [string, string, string, number]>()
  const issueEnvironments = new Map<string, [string, string, string, number]>()
  const add = <T extends unknown[]>(map: Map<string, T>, key: string, row: T): void => {
    if (seen.get(key) === undefined && !map.has(key)) map.set(key, row)
  }
  for (const x of inserted) {
    const project = x.envelope.projectId
    const issue = issueIds.get(x.issueKey)!
    const at = x.envelope.receivedAt
    const release = x.facts.release
    if (release) {
      add(releases, `r|${project}|${release}`, [project, release, at])
      add(issueReleases, `ir|${issue}|${release}`, [project, issue, release, at])
    }
    const environment = x.facts.environment ? environmentIds.get(`${project}|${x.facts.environment}`) : undefined
    if (environment) add(issueEnvironments, `ie|${issue}|${environment}`, [project, issue, environment, at])
  }
  const column = <T extends unknown[]>(map: Map<string, T>, i: number): unknown[] => [...map.values()].map((row) => (typeof row[i] === 'number' ? new Date(row[i] as number) : row[i]))
  if (releases.size > 0) {
    await client.query(
      `INSERT INTO releases (project_id, name, first_seen) SELECT * FROM unnest($1::uuid[], $2::text[], $3::timestamptz[]) ON CONFLICT DO NOTHING`,
      [column(releases, 0), column(releases, 1), column(releases, 2)],
    )
  }
  for (const [table, map, type] of [['issue_releases (project_id, issue_id, release, first_seen)', issueReleases, 'text'], ['issue_environments (project_id, issue_id, environment_id, first_seen)', issueEnvironments, 'uuid']] as const) {
    if (map.size === 0) continue
    await client.query(`INSERT INTO ${table} SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::${type}[], $4::timestamptz[]) ON CONFLICT DO NOTHING`, [column(map, 0), column(map, 1), column(map, 2), column(map, 3)])
  }
  const remember = new Map<string, string>()
  for (const key of [...releases.keys(), ...issueReleases.keys(), ...issueEnvironments.keys()]) remember.set(key, '1')
  return remember
}

/** An issue the batch's counter update touched that is not open, as the update left it. */
export interface TriageState {
  id: string
  project_id: string
  triage: 'resolved' | 'ignored'
  resolved_at: Date | null
  resolved_mode: '' | 'now' | 'next_release'
  resolved_release: string | null
  ignored_until: Date | null
  ignored_until_events: string | null
  ignored_until_users: number | null
  event_count: string
  user_count: number
}

/**
 * Reopens what the batch's events bring back: regressions of resolved issues, ignored issues whose
 * condition is met; answers the ids of the issues that regressed (the alerter's signal).
 */
export async function reopenOnEvents(client: pg.PoolClient, states: readonly TriageState[], inserted: readonly Prepared[], issueIds: ReadonlyMap<string, string>): Promise<Set<string>> {
  const regressed = new Set<string>()
  if (states.length === 0) return regressed
  const events = new Map<string, Array<{ at: number; release: string | null }>>()
  for (const x of inserted) {
    const id = issueIds.get(x.issueKey)!
    const list = events.get(id) ?? []
    list.push({ at: x.envelope.receivedAt, release: x.facts.release ?? null })
    events.set(id, list)
  }
  for (const state of states) {
    const mine = events.get(state.id) ?? []
    if (state.triage === 'resolved') {
      if (await regressIfDue(client, state, mine)) regressed.add(state.id)
    } else await unignoreIfDue(client, state, mine)
  }
  return regressed
}

/**
 * Resolved now: an event received after the resolve brings it back. Resolved in the next release:
 * an event received after the resolve, of a release later than the newest one then (any release
 * when none was known); an event of that release or an older one, or of none, does not.
 * Received after, not occurred after: an event that was waiting in the stream when a person
 * resolved the issue does not regress it.
 */
async function regressIfDue(client: pg.PoolClient, state: TriageState, events: Array<{ at: number; release: string | null }>): Promise<boolean> {
  const resolvedAt = state.resolved_at?.getTime() ?? 0
  const after = events.filter((e) => e.at > resolvedAt)
  if (after.length === 0) return false
  let release: string | null = after.find((e) => e.release !== null)?.release ?? null
  if (state.resolved_mode === 'next_release') {
    const named = [...new Set(after.map((e) => e.release).filter((r): r is string => r !== null))]
    if (named.length === 0) return false
    if (state.resolved_release === null) release = named[0]!
    else {
      const { rows } = await client.query<{ name: string; first_seen: Date }>(`SELECT name, first_seen FROM releases WHERE project_id = $1 AND name = ANY($2::text[])`, [state.project_id, [...named, state.resolved_release]])
      const seen = new Map(rows.map((r) => [r.name, r.first_seen]))
      const resolved = { name: state.resolved_release, firstSeen: seen.get(state.resolved_release) ?? new Date(0) }
      const later = named.filter((name) => compareReleases({ name, firstSeen: seen.get(name) ?? new Date() }, resolved) > 0)
      if (later.length === 0) return false
      release = later[0]!
    }
  }
  await client.query(`UPDATE issues SET triage = 'open', ${CLEARED}, regressed_at = clock_timestamp(), regressed_release = $2 WHERE id = $1`, [state.id, release])
  const why = release === null ? 'an event arrived after it was resolved' : `an event of release ${release} arrived after it was resolved`
  await writeHistory(client, state.project_id, [{ issueId: state.id, action: 'regress', fromState: 'resolved', toState: 'open', detail: { release, mode: state.resolved_mode } }], SERVICE, why)
  return true
}

/** Ignored until a time, or until so many events or users: the first batch past it reopens the issue. */
async function unignoreIfDue(client: pg.PoolClient, state: TriageState, events: Array<{ at: number }>): Promise<void> {
  const latest = Math.max(0, ...events.map((e) => e.at))
  let why = ''
  if (state.ignored_until && latest > state.ignored_until.getTime()) why = `an event arrived after ${state.ignored_until.toISOString()}, when the ignore ended`
  else if (state.ignored_until_events !== null && Number(state.event_count) >= Number(state.ignored_until_events)) why = `it reached ${state.ignored_until_events} events`
  else if (state.ignored_until_users !== null && state.user_count >= state.ignored_until_users) why = `it reached ${state.ignored_until_users} users`
  if (!why) return
  await client.query(`UPDATE issues SET triage = 'open', ${CLEARED} WHERE id = $1`, [state.id])
  await writeHistory(client, state.project_id, [{ issueId: state.id, action: 'unignore', fromState: 'ignored', toState: 'open' }], SERVICE, why)
}
