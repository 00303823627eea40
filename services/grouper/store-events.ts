/**
 * Writes one batch of accepted events in one transaction: environments, issues, events, actors and
 * counters, each as a single statement over arrays. Only events that were newly inserted move a
 * counter, so a redelivered batch (at-least-once streams) never double-counts.
 */
import type pg from 'pg'
import type { Db } from '../../shared/db/index.js'
import type { EventEnvelope } from '../../shared/domain/event.js'
import type { IssueChange } from '../../shared/domain/issue-changes.js'
import { groupEvent, isFetchFailure, lastFailedRequest, parseFrames } from './grouping/index.js'
import { pageOrigin } from './grouping/in-app.js'
import { factsOf } from './event-facts.js'
import { KnownIds } from '../../shared/domain/known-ids.js'
import { environmentKey, upsertEnvironments } from '../../shared/domain/environments.js'
import { ProjectVersions } from './project-versions.js'
import { readEvent } from './read-event.js'
import type { Symbolicator } from './symbolication/symbolicator.js'
import { upsertIssues } from './upsert-issues.js'
import { bumpIssueCounters, upsertActors } from './issue-counters.js'
import { recordSeen, refuseRerouted, reopenOnEvents, routeMerged } from './triage/on-events.js'
import type { Grouped, Prepared } from './prepared.js'
import { DEFAULT_SAMPLING, predictSampling, settleSampling, SLIM_PAYLOAD, type IssueSampling } from './issue-sampling.js'

export interface BatchOutcome {
  stored: number
  duplicates: number
  /** Events the noise rules mark (ResizeObserver loops, bare "Script error.", extension-only stacks): stored in noise issues. */
  noise: number
  /** Entries whose body no longer parses: cannot succeed on retry, so they are reported, not retried. */
  unreadable: string[]
  /** Newly stored events that were stored slim (per-issue sampling, docs/sampling.md), by project: counted, payload dropped. */
  sampled: Record<string, number>
  /** Issues (not noise) the batch's events belong to, stored now or before (a redelivery), with their releases. */
  changes: IssueChange[]
}


/**
 * Groups and stores a batch; resolves once everything is committed. Each project's events are
 * grouped with its own fingerprint version (versions, kept across batches by the grouper); past an
 * issue's cap in its window, events are stored slim (sampling).
 */
export async function storeEventBatch(db: Db, envelopes: readonly EventEnvelope[], symbolicator?: Symbolicator, versions = new ProjectVersions(db), known: GrouperMemory = { issues: new KnownIds(), environments: new KnownIds() }, sampling = DEFAULT_SAMPLING): Promise<BatchOutcome> {
  const outcome: BatchOutcome = { stored: 0, duplicates: 0, noise: 0, sampled: {}, unreadable: [], changes: [] }
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
    const found = await db.withTransaction((client) => storePrepared(client, prepared, outcome, known, sampling))
    known.issues.remember(found.issues)
    known.environments.remember(found.environments)
    known.seen?.remember(found.seen)
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
  /** Releases, and each issue's releases and environments, recorded lately (triage/on-events.ts). */
  seen?: KnownIds
}

/** The batch's writes, in one transaction: environments, issues, events, actors, counters, triage; answers what to remember. */
async function storePrepared(client: pg.PoolClient, prepared: Prepared[], outcome: BatchOutcome, known: GrouperMemory, sampling: IssueSampling): Promise<{ issues: Map<string, string>; environments: Map<string, string>; seen: Map<string, string> }> {
  const environmentIds = await upsertEnvironments(client, prepared, known.environments)
  // A fingerprint's own issue is what is remembered; its events land where that issue was merged.
  const created = new Set<string>()
  const own = await upsertIssues(client, prepared, known.issues, created)
  const { ids: issueIds, from } = await routeMerged(client, own)
  const predicted = await predictSampling(client, prepared, issueIds, sampling)
  const inserted = await insertEvents(client, prepared, issueIds, environmentIds, from, predicted)
  outcome.stored = inserted.length
  outcome.duplicates = prepared.length - inserted.length
  const seen = await recordSeen(client, inserted, issueIds, environmentIds, known.seen ?? new KnownIds())
  const actorGains = await upsertActors(client, inserted, issueIds)
  // The issues' locks are taken here, after the insert: concurrent batches of one issue take turns only from now to their commits.
  const settled = await settleSampling(client, inserted, own, issueIds, sampling)
  refuseRerouted(settled.mergedInto, own, issueIds)
  const misguessed = inserted.filter((x) => predicted.has(x.envelope.id) !== settled.slim.has(x.envelope.id))
  await rewriteRows(client, misguessed.map((x) => eventRow(x, environmentIds, issueIds, from, settled.slim.has(x.envelope.id))))
  for (const x of inserted) if (settled.slim.has(x.envelope.id)) outcome.sampled[x.envelope.projectId] = (outcome.sampled[x.envelope.projectId] ?? 0) + 1
  const triaged = await bumpIssueCounters(client, inserted, issueIds, actorGains, settled.windows)
  const regressed = await reopenOnEvents(client, triaged, inserted, issueIds)
  outcome.changes = changesOf(prepared, issueIds, { created, regressed, inserted: new Set(inserted.map((x) => x.envelope.id)) })
  return { issues: own, environments: environmentIds, seen }
}

/** What the batch's transaction learned for the alerter: issues it opened or regressed, events it stored. */
interface BatchSignals {
  created: ReadonlySet<string>
  regressed: ReadonlySet<string>
  inserted: ReadonlySet<string>
}

/**
 * Every non-noise issue the batch touched, with the releases its events named, whether the batch
 * opened or regressed it, how many of its events it stored (0 on a redelivery) and the earliest
 * receipt among them (the alert latency's start).
 */
function changesOf(prepared: Prepared[], issueIds: Map<string, string>, signals: BatchSignals): IssueChange[] {
  const changes = new Map<string, IssueChange>()
  for (const x of prepared) {
    if (x.grouping.drop) continue
    const issueId = issueIds.get(x.issueKey)!
    const change = changes.get(issueId) ?? { issueId, projectId: x.envelope.projectId, releases: [], created: signals.created.has(issueId), regressed: signals.regressed.has(issueId), events: 0, receivedAt: 0 }
    if (x.facts.release && !change.releases.includes(x.facts.release)) change.releases.push(x.facts.release)
    if (signals.inserted.has(x.envelope.id)) change.events += 1
    change.receivedAt = change.receivedAt === 0 ? x.envelope.receivedAt : Math.min(change.receivedAt, x.envelope.receivedAt)
    changes.set(issueId, change)
  }
  return [...changes.values()]
}

/**
 * One event as a row of the JSON document insertEvents and rewriteRows send. The body is spliced in
 * verbatim (it is JSON the ingress validated and readEvent parsed): a text[] parameter would escape
 * every quote of every body in JavaScript, which cost more than the rest of the grouper put together.
 */
function eventRow(x: Prepared, environmentIds: Map<string, string>, issueIds: Map<string, string>, mergedFrom: Map<string, string>, slim: boolean): string {
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
    mf: mergedFrom.get(x.issueKey),
  }
  const head = JSON.stringify(columns)
  // A slim row (sampling) keeps what counting and facets read, and a grouping without frames.
  if (slim) return `${head.slice(0, -1)},"w":false,"g":${JSON.stringify({ version: x.grouping.version, fingerprint: x.grouping.fingerprint, culprit: x.grouping.culprit })},"b":${SLIM_PAYLOAD}}`
  return `${head.slice(0, -1)},"w":true,"g":${x.grouping.json},"b":${x.body}}`
}

/** Rewrites rows this transaction inserted whose sampling was guessed wrong (issue-sampling.ts): whole made slim, slim made whole. */
async function rewriteRows(client: pg.PoolClient, rows: string[]): Promise<void> {
  if (rows.length === 0) return
  await client.query(
    `UPDATE events SET whole = x.w, grouping = x.g, payload = x.b
       FROM json_to_recordset($1::json) AS x(id uuid, r timestamptz, g json, b json, w boolean)
      WHERE events.id = x.id AND events.received_at = x.r`,
    [Buffer.from(`[${rows.join(',')}]`)],
  )
}

/** How long a sender's resend is recognised by its id (event_receipts are pruned past it). */
export const RESEND_WINDOW_DAYS = 7

async function insertEvents(client: pg.PoolClient, prepared: Prepared[], issueIds: Map<string, string>, environmentIds: Map<string, string>, mergedFrom: Map<string, string>, slim: ReadonlySet<string>): Promise<Prepared[]> {
  // One event sent twice (its first answer was lost) can arrive twice in a batch: one row, counted once.
  const ids = new Set<string>()
  const unique = prepared.filter((x) => !ids.has(x.envelope.id) && ids.add(x.envelope.id))
  // The batch travels as one JSON document (eventRow).
  const rows = unique.map((x) => eventRow(x, environmentIds, issueIds, mergedFrom, slim.has(x.envelope.id)))
  const { rows: insertedRows } = await client.query<{ id: string }>(
    // Stored once per id (docs/retention.md): a redelivery carries the same received_at (the
    // primary key (id, received_at) catches it); a sender's resend comes with a new one, so its id's
    // receipt decides (a second grouper inserting it waits for the first's commit, then skips it),
    // and an id received before its receipts began (events_legacy) is found by its index.
    `WITH x AS (
       SELECT * FROM json_to_recordset($1::json)
         AS x(id uuid, p uuid, i uuid, e uuid, o timestamptz, r timestamptz, rel text, s text, u text, rec uuid, mf uuid, g json, b json, w boolean)),
     receipt AS (
       INSERT INTO event_receipts (id, received_at) SELECT id, r FROM x ON CONFLICT (id) DO NOTHING RETURNING id)
     INSERT INTO events (id, project_id, issue_id, environment_id, occurred_at, received_at, release, session_id, user_key, recording_id, merged_from, grouping, payload, whole)
     SELECT x.id, p, i, e, o, r, rel, s, u, rec, mf, g, b, w
     FROM x JOIN receipt USING (id)
     WHERE NOT EXISTS (SELECT 1 FROM events old WHERE old.id = x.id AND old.received_at > x.r - interval '${RESEND_WINDOW_DAYS} days' AND old.received_at < x.r)
     ON CONFLICT (id, received_at) DO NOTHING
     RETURNING id`,
    // As bytes: pg sends a Buffer as it is (json's binary form is its text), where a string would be
    // measured, then encoded, then copied again as its buffer grows.
    [Buffer.from(`[${rows.join(',')}]`)],
  )
  const insertedIds = new Set(insertedRows.map((r) => r.id))
  return unique.filter((x) => insertedIds.has(x.envelope.id))
}
