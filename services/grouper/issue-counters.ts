/**
 * A batch's actors and counters: issue_actors rows for the users and sessions its newly stored
 * events name, and each issue's counters, first and last seen, title and culprit. Only events that
 * were newly inserted move a counter, so a redelivered batch never double-counts.
 */
import type pg from 'pg'
import type { Grouped, Prepared } from './prepared.js'
import type { TriageState } from './triage/on-events.js'
import type { SampleWindow } from './issue-sampling.js'

const TRIAGE_COLUMNS = ['id', 'project_id', 'triage', 'resolved_at', 'resolved_mode', 'resolved_release', 'ignored_until', 'ignored_until_events', 'ignored_until_users', 'event_count', 'user_count'].map((c) => `i.${c}`).join(', ')

export type ActorGains = Map<string, { users: number; sessions: number }>

/**
 * An actor's row moves only when its times move by more than this (or it shows a new kind of
 * event): a user who keeps hitting an error rewrote the row, and both its indexes, for every batch,
 * about a fifth of PostgreSQL's work per event. Admission counts by days, so a minute is nothing.
 */
const ACTOR_TIME_STEP = '1 minute'

export async function upsertActors(client: pg.PoolClient, inserted: Prepared[], issueIds: Map<string, string>): Promise<ActorGains> {
  // ON CONFLICT cannot touch one row twice in a statement: fold duplicates within the batch first.
  const actors = new Map<string, { issueId: string; kind: 'u' | 's'; actor: string; at: number; realAt: number | null; kinds: number }>()
  const add = (issueId: string, kind: 'u' | 's', actor: string | null, x: Prepared): void => {
    if (!actor) return
    const key = `${issueId}|${kind}|${actor}`
    const at = x.envelope.receivedAt
    const realAt = x.facts.realAt?.getTime() ?? null
    const current = actors.get(key)
    if (!current) return void actors.set(key, { issueId, kind, actor, at, realAt, kinds: x.facts.seenKinds })
    current.at = Math.max(current.at, at)
    if (realAt !== null && (current.realAt === null || realAt > current.realAt)) current.realAt = realAt
    current.kinds |= x.facts.seenKinds
  }
  for (const x of inserted) {
    const issueId = issueIds.get(x.issueKey)!
    add(issueId, 'u', x.facts.userKey, x)
    add(issueId, 's', x.facts.sessionId, x)
  }
  const gains: ActorGains = new Map()
  if (actors.size === 0) return gains
  const list = [...actors.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map((e) => e[1])
  const { rows } = await client.query<{ issue_id: string; actor_kind: 'u' | 's'; inserted: boolean }>(
    `INSERT INTO issue_actors (issue_id, actor_kind, actor, first_seen, last_seen, real_seen_at, seen_kinds)
     SELECT i, k, a, t, t, r, b FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[], $6::smallint[]) AS x(i, k, a, t, r, b)
     ON CONFLICT (issue_id, actor_kind, actor) DO UPDATE SET last_seen = GREATEST(issue_actors.last_seen, EXCLUDED.last_seen),
       real_seen_at = GREATEST(issue_actors.real_seen_at, EXCLUDED.real_seen_at), seen_kinds = issue_actors.seen_kinds | EXCLUDED.seen_kinds
     WHERE EXCLUDED.last_seen > issue_actors.last_seen + interval '${ACTOR_TIME_STEP}'
        OR EXCLUDED.real_seen_at > COALESCE(issue_actors.real_seen_at + interval '${ACTOR_TIME_STEP}', '-infinity')
        OR issue_actors.seen_kinds | EXCLUDED.seen_kinds <> issue_actors.seen_kinds
     RETURNING issue_id, actor_kind, (xmax = 0) AS inserted`,
    [list.map((a) => a.issueId), list.map((a) => a.kind), list.map((a) => a.actor), list.map((a) => new Date(a.at)), list.map((a) => (a.realAt === null ? null : new Date(a.realAt))), list.map((a) => a.kinds)],
  )
  for (const row of rows) {
    if (!row.inserted) continue
    const gain = gains.get(row.issue_id) ?? { users: 0, sessions: 0 }
    if (row.actor_kind === 'u') gain.users++
    else gain.sessions++
    gains.set(row.issue_id, gain)
  }
  return gains
}

/**
 * Moves the counters of the issues that gained events, and gives an issue the title and culprit of
 * a gained event that reads better in source terms (say, the first after its maps were uploaded).
 * An event that reads as well takes over the title only where the stored one is its masked title
 * (an id the code wrote, masked by the rule before issue 28): a title never flips between engines'
 * wordings, and a name masked once comes back with the next event that names it.
 */
export async function bumpIssueCounters(client: pg.PoolClient, inserted: Prepared[], issueIds: Map<string, string>, gains: ActorGains, windows: ReadonlyMap<string, SampleWindow>): Promise<TriageState[]> {
  const perIssue = new Map<string, { n: number; first: number; last: number; best: Grouped }>()
  for (const x of inserted) {
    const id = issueIds.get(x.issueKey)!
    const at = x.envelope.receivedAt
    const current = perIssue.get(id)
    if (!current) perIssue.set(id, { n: 1, first: at, last: at, best: x.grouping })
    else Object.assign(current, { n: current.n + 1, first: Math.min(current.first, at), last: Math.max(current.last, at), best: (x.grouping.quality ?? 0) > (current.best.quality ?? 0) ? x.grouping : current.best })
  }
  if (perIssue.size === 0) return []
  const ids = [...perIssue.keys()].sort()
  const rows = ids.map((id) => perIssue.get(id)!)
  // The update answers the issues that are not open: the batch's events may bring them back (triage/on-events.ts).
  const { rows: triaged } = await client.query<Omit<TriageState, 'triage'> & { triage: string }>(
    `UPDATE issues AS i SET
       event_count = i.event_count + d.n,
       user_count = i.user_count + d.u,
       session_count = i.session_count + d.s,
       first_seen = LEAST(i.first_seen, d.first),
       last_seen = GREATEST(i.last_seen, d.last),
       title = CASE WHEN d.q > i.detail_quality OR (d.q = i.detail_quality AND i.title = d.m AND d.t <> d.m) THEN d.t ELSE i.title END,
       culprit = CASE WHEN d.q > i.detail_quality THEN d.c ELSE i.culprit END,
       detail_quality = GREATEST(i.detail_quality, d.q),
       sample_window_start = d.ws,
       sample_window_events = d.wn
     FROM unnest($1::uuid[], $2::int[], $3::int[], $4::int[], $5::timestamptz[], $6::timestamptz[], $7::int[], $8::text[], $9::text[], $10::text[], $11::timestamptz[], $12::int[])
       AS d(id, n, u, s, first, last, q, t, c, m, ws, wn)
     WHERE i.id = d.id
     RETURNING ${TRIAGE_COLUMNS}`,
    [
      ids,
      rows.map((row) => row.n),
      ids.map((id) => gains.get(id)?.users ?? 0),
      ids.map((id) => gains.get(id)?.sessions ?? 0),
      rows.map((row) => new Date(row.first)),
      rows.map((row) => new Date(row.last)),
      rows.map((row) => row.best.quality ?? 0),
      rows.map((row) => row.best.title),
      rows.map((row) => row.best.culprit),
      rows.map((row) => row.best.maskedTitle ?? null),
      // The sampling window as settleSampling walked it under the row's lock (issue-sampling.ts).
      ids.map((id) => new Date(windows.get(id)!.start!)),
      ids.map((id) => windows.get(id)!.events),
    ],
  )
  return triaged.filter((row): row is TriageState => row.triage !== 'open')
}
