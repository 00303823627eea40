/**
 * Writes one batch of accepted events in one transaction: environments, issues, events, actors and
 * counters, each as a single statement over arrays. Only events that were newly inserted move a
 * counter, so a redelivered batch (at-least-once streams) never double-counts.
 */
import type pg from 'pg'
import type { Db } from '../../shared/db/index.js'
import type { EventEnvelope } from '../../shared/domain/event.js'
import type { IssueChange } from '../../shared/domain/issue-changes.js'
import { groupEvent, isFetchFailure, lastFailedRequest, parseFrames, type GroupingResult } from './grouping/index.js'
import { pageOrigin } from './grouping/in-app.js'
import { factsOf, type EventFacts } from './event-facts.js'
import { KnownIds } from '../../shared/domain/known-ids.js'
import { environmentKey, upsertEnvironments } from '../../shared/domain/environments.js'
import { ProjectVersions } from './project-versions.js'
import { readEvent } from './read-event.js'
import type { Symbolicator } from './symbolication/symbolicator.js'
import { upsertIssues } from './upsert-issues.js'

export interface BatchOutcome {
  stored: number
  duplicates: number
  /** Events the noise rules mark (ResizeObserver loops, bare "Script error.", extension-only stacks): stored in noise issues. */
  noise: number
  /** Entries whose body no longer parses: cannot succeed on retry, so they are reported, not retried. */
  unreadable: string[]
  /** Issues (not noise) the batch's events belong to, stored now or before (a redelivery), with their releases. */
  changes: IssueChange[]
}

interface Prepared {
  envelope: EventEnvelope
  /** The body as stored: the envelope's, or a storable copy of it (see readEvent). */
  body: string
  /**
   * What the tables need of the event, taken out while preparing: the parsed event itself is then
   * garbage at once instead of living through the transaction's round trips, where every scavenge
   * on the way copied it.
   */
  facts: EventFacts
  grouping: Grouped
  issueKey: string
}

/** A grouping result with its stored form (the events.grouping column), made once per distinct error. */
interface Grouped extends GroupingResult {
  json: string
  /** The fingerprint the project's previous version gives the error, for a project that was upgraded. */
  previousFingerprint?: string
}

/**
 * Groups and stores a batch; resolves once everything is committed. Each project's events are
 * grouped with its own fingerprint version (versions, kept across batches by the grouper).
 */
export async function storeEventBatch(db: Db, envelopes: readonly EventEnvelope[], symbolicator?: Symbolicator, versions = new ProjectVersions(db), known: GrouperMemory = { issues: new KnownIds(), environments: new KnownIds() }): Promise<BatchOutcome> {
  const outcome: BatchOutcome = { stored: 0, duplicates: 0, noise: 0, unreadable: [], changes: [] }
  const groupingOf = await versions.of(envelopes.map((envelope) => envelope.projectId))
  const prepared: Prepared[] = []
  // One bug reported by many users arrives as many events with the same error and stack: within a
  // batch, each distinct error is parsed, symbolicated and fingerprinted once. Keyed by the stack
  // first, then by the rest: a key holding the stack was a copy of it per event, and hashing it twice.
  const groupings = new Map<string, Map<string, Grouped>>()
  for (const envelope of envelopes) {
    const read = readEvent(envelope.body)
    if (!read) {
      outcome.unreadable.push(envelope.id)
      continue
    }
    const { event, body } = read
    const failedRequest = isFetchFailure(event.error.message) ? lastFailedRequest(event.breadcrumbs) : undefined
    const input = { type: event.error.type, message: event.error.message, stack: event.error.stack, url: event.context.url, thrown: event.error.thrown, failedRequest }
    const project = groupingOf.get(envelope.projectId)!
    // Everything grouping reads: the error, the page's origin (in-app frames) and, for
    // symbolication, the project, release and debug ids.
    const sameError = JSON.stringify([envelope.projectId, event.release ?? null, event.debug_ids ?? null, input.type, input.message, pageOrigin(input.url) ?? null, input.thrown ?? null, failedRequest ?? null])
    // A stack that is not text (a hand-made body) is marked by a NUL no stored text holds (readEvent).
    const sameStack = typeof input.stack === 'string' ? input.stack : `\u0000${JSON.stringify(input.stack ?? null)}`
    let ofStack = groupings.get(sameStack)
    if (!ofStack) groupings.set(sameStack, (ofStack = new Map()))
    let grouping = ofStack.get(sameError)
    if (!grouping) {
      // Symbolicated frames, when the project uploaded maps: grouping then keys on the original code.
      const frames = symbolicator
        ? await symbolicator.symbolicate({ projectId: envelope.projectId, release: event.release, frames: parseFrames(input), debugIds: event.debug_ids })
        : undefined
      const result = groupEvent({ ...input, frames, statementOf: symbolicator?.statementOf }, project.version)
      // One more fingerprint, for upgraded projects only: the error may belong to an open issue of the old version.
      const previousFingerprint = project.previous === undefined ? undefined : groupEvent({ ...input, frames, statementOf: symbolicator?.statementOf }, project.previous).fingerprint
      grouping = { ...result, previousFingerprint, json: JSON.stringify({ version: result.version, fingerprint: result.fingerprint, culprit: result.culprit, stack_note: result.stackNote, frames: result.frames }) }
      ofStack.set(sameError, grouping)
    }
    // Noise is stored like any event (Events 1), in an issue marked as noise.
    if (grouping.drop) outcome.noise++
    prepared.push({ envelope, body, facts: factsOf(envelope, event), grouping, issueKey: `${envelope.projectId}|${grouping.fingerprint}` })
  }
  if (prepared.length === 0) return outcome

  try {
    const found = await db.withTransaction((client) => storePrepared(client, prepared, outcome, known))
    known.issues.remember(found.issues)
    known.environments.remember(found.environments)
  } catch (error) {
    known.issues.forget(prepared.map((x) => x.issueKey))
    known.environments.forget(prepared.map((x) => environmentKey(x)))
    throw error
  }
  return outcome
}

/** The issues and environments a grouper knows from its earlier batches. */
export interface GrouperMemory {
  issues: KnownIds
  environments: KnownIds
}

/** The batch's writes, in one transaction: environments, issues, events, actors, counters; answers the ids it found. */
async function storePrepared(client: pg.PoolClient, prepared: Prepared[], outcome: BatchOutcome, known: GrouperMemory): Promise<{ issues: Map<string, string>; environments: Map<string, string> }> {
  const environmentIds = await upsertEnvironments(client, prepared, known.environments)
  const issueIds = await upsertIssues(client, prepared, known.issues)
  const inserted = await insertEvents(client, prepared, issueIds, environmentIds)
  outcome.stored = inserted.length
  outcome.duplicates = prepared.length - inserted.length
  const actorGains = await upsertActors(client, inserted, issueIds)
  await bumpIssueCounters(client, inserted, issueIds, actorGains)
  outcome.changes = changesOf(prepared, issueIds)
  return { issues: issueIds, environments: environmentIds }
}



/** Every non-noise issue the batch touched, with the releases its events named. */
function changesOf(prepared: Prepared[], issueIds: Map<string, string>): IssueChange[] {
  const changes = new Map<string, IssueChange>()
  for (const x of prepared) {
    if (x.grouping.drop) continue
    const issueId = issueIds.get(x.issueKey)!
    const change = changes.get(issueId) ?? { issueId, projectId: x.envelope.projectId, releases: [] }
    if (x.facts.release && !change.releases.includes(x.facts.release)) change.releases.push(x.facts.release)
    changes.set(issueId, change)
  }
  return [...changes.values()]
}

async function insertEvents(client: pg.PoolClient, prepared: Prepared[], issueIds: Map<string, string>, environmentIds: Map<string, string>): Promise<Prepared[]> {
  // One event sent twice (its first answer was lost) can arrive twice in a batch: one row, counted once.
  const ids = new Set<string>()
  const unique = prepared.filter((x) => !ids.has(x.envelope.id) && ids.add(x.envelope.id))
  // The batch travels as one JSON document with each body spliced in verbatim (it is JSON the
  // ingress validated and readEvent parsed): a text[] parameter would escape every quote of every
  // body in JavaScript, which cost more than the rest of the grouper put together.
  const rows: string[] = unique.map((x) => {
    const environment = x.facts.environment ? (environmentIds.get(`${x.envelope.projectId}|${x.facts.environment}`) ?? null) : null
    const columns = {
      id: x.envelope.id,
      p: x.envelope.projectId,
      i: issueIds.get(x.issueKey),
      e: environment,
      o: x.facts.occurredAt.toISOString(),
      r: new Date(x.envelope.receivedAt).toISOString(),
      rel: x.facts.release,
      s: x.facts.sessionId,
      u: x.facts.userKey,
      // Left out when null (JSON.stringify drops undefined; a missing key reads as NULL): most events have none.
      rec: x.facts.recordingId ?? undefined,
    }
    const head = JSON.stringify(columns)
    return `${head.slice(0, -1)},"g":${x.grouping.json},"b":${x.body}}`
  })
  const { rows: insertedRows } = await client.query<{ id: string }>(
    `INSERT INTO events (id, project_id, issue_id, environment_id, occurred_at, received_at, release, session_id, user_key, recording_id, grouping, payload)
     SELECT id, p, i, e, o, r, rel, s, u, rec, g, b
     FROM json_to_recordset($1::json)
       AS x(id uuid, p uuid, i uuid, e uuid, o timestamptz, r timestamptz, rel text, s text, u text, rec uuid, g json, b json)
     ON CONFLICT (id) DO NOTHING
     RETURNING id`,
    // As bytes: pg sends a Buffer as it is (json's binary form is its text), where a string would be
    // measured, then encoded, then copied again as its buffer grows.
    [Buffer.from(`[${rows.join(',')}]`)],
  )
  const insertedIds = new Set(insertedRows.map((r) => r.id))
  return unique.filter((x) => insertedIds.has(x.envelope.id))
}

type ActorGains = Map<string, { users: number; sessions: number }>

/**
 * An actor's row moves only when its times move by more than this (or it shows a new kind of
 * event): a user who keeps hitting an error rewrote the row, and both its indexes, for every batch,
 * about a fifth of PostgreSQL's work per event. Admission counts by days, so a minute is nothing.
 */
const ACTOR_TIME_STEP = '1 minute'

async function upsertActors(client: pg.PoolClient, inserted: Prepared[], issueIds: Map<string, string>): Promise<ActorGains> {
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
async function bumpIssueCounters(client: pg.PoolClient, inserted: Prepared[], issueIds: Map<string, string>, gains: ActorGains): Promise<void> {
  const perIssue = new Map<string, { n: number; first: number; last: number; best: Grouped }>()
  for (const x of inserted) {
    const id = issueIds.get(x.issueKey)!
    const at = x.envelope.receivedAt
    const current = perIssue.get(id)
    if (!current) perIssue.set(id, { n: 1, first: at, last: at, best: x.grouping })
    else Object.assign(current, { n: current.n + 1, first: Math.min(current.first, at), last: Math.max(current.last, at), best: (x.grouping.quality ?? 0) > (current.best.quality ?? 0) ? x.grouping : current.best })
  }
  if (perIssue.size === 0) return
  const ids = [...perIssue.keys()].sort()
  const rows = ids.map((id) => perIssue.get(id)!)
  await client.query(
    `UPDATE issues AS i SET
       event_count = i.event_count + d.n,
       user_count = i.user_count + d.u,
       session_count = i.session_count + d.s,
       first_seen = LEAST(i.first_seen, d.first),
       last_seen = GREATEST(i.last_seen, d.last),
       title = CASE WHEN d.q > i.detail_quality OR (d.q = i.detail_quality AND i.title = d.m AND d.t <> d.m) THEN d.t ELSE i.title END,
       culprit = CASE WHEN d.q > i.detail_quality THEN d.c ELSE i.culprit END,
       detail_quality = GREATEST(i.detail_quality, d.q)
     FROM unnest($1::uuid[], $2::int[], $3::int[], $4::int[], $5::timestamptz[], $6::timestamptz[], $7::int[], $8::text[], $9::text[], $10::text[])
       AS d(id, n, u, s, first, last, q, t, c, m)
     WHERE i.id = d.id`,
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
    ],
  )
}
