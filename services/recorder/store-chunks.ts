/**
 * Writes one batch of chunk entries in one transaction: the chunk rows (once per project,
 * recording and seq), then each recording's times, pages and counts moved by the chunks that were
 * new, so a redelivered entry or a resent chunk never counts twice. What the batch says about
 * objects (a resend's second object, the chunks of a project that is gone) is answered for the
 * caller to act on after the commit.
 */
import type pg from 'pg'
import type { Db } from '../../shared/db/index.js'
import { MAX_PAGES, type RecordingChunk } from '../../shared/domain/recording-chunk.js'
import { userKey } from '../../shared/domain/user-key.js'
import type { KnownIds } from '../../shared/domain/known-ids.js'
import { environmentKey, upsertEnvironments } from '../../shared/domain/environments.js'

export interface ChunkBatchOutcome {
  /** Chunks whose row this batch wrote. */
  stored: number
  /** Chunks whose row was there already (a redelivery, or the SDK sending the chunk again). */
  duplicates: number
  /** Object keys whose row is stored: they leave the ledger. */
  recorded: string[]
  /** Objects nothing will name: a resent chunk's under another hash (the first one's row wins). */
  resent: string[]
  /** Chunks of projects that no longer exist: their objects, and the projects. */
  orphaned: { keys: string[]; projects: string[] }
}

/** What a user is shown as: the id, username or email the SDK sent, at most this long. */
const USER_LABEL_CHARS = 200

/** Stores a batch; resolves once it is committed. known: the environment ids found in earlier batches. */
export async function storeChunkBatch(db: Db, chunks: readonly RecordingChunk[], known: KnownIds): Promise<ChunkBatchOutcome> {
  const outcome: ChunkBatchOutcome = { stored: 0, duplicates: 0, recorded: [], resent: [], orphaned: { keys: [], projects: [] } }
  if (chunks.length === 0) return outcome
  const candidates = chunks.map((chunk) => ({ envelope: { projectId: chunk.projectId }, facts: { environment: chunk.environment } }))
  try {
    const environments = await db.withTransaction((client) => storeChunks(client, chunks, known, outcome))
    known.remember(environments)
  } catch (error) {
    known.forget(candidates.map(environmentKey))
    throw error
  }
  return outcome
}

const chunkId = (x: { projectId: string; recordingId: string; seq: number }): string => `${x.projectId}|${x.recordingId}|${x.seq}`
const recordingId = (x: { projectId: string; recordingId: string }): string => `${x.projectId}|${x.recordingId}`

async function storeChunks(client: pg.PoolClient, chunks: readonly RecordingChunk[], known: KnownIds, outcome: ChunkBatchOutcome): Promise<Map<string, string>> {
  // KEY SHARE holds the projects until the commit: one deleted meanwhile waits for this batch.
  const { rows: projects } = await client.query<{ id: string }>('SELECT id FROM projects WHERE id = ANY($1::uuid[]) ORDER BY id FOR KEY SHARE', [[...new Set(chunks.map((c) => c.projectId))]])
  const live = new Set(projects.map((row) => row.id))
  const kept = chunks.filter((chunk) => live.has(chunk.projectId))
  for (const chunk of chunks) if (!live.has(chunk.projectId)) outcome.orphaned.keys.push(chunk.key)
  outcome.orphaned.projects = [...new Set(chunks.filter((c) => !live.has(c.projectId)).map((c) => c.projectId))]
  if (kept.length === 0) return new Map()

  const environments = await upsertEnvironments(client, kept.map((chunk) => ({ envelope: { projectId: chunk.projectId }, facts: { environment: chunk.environment } })), known)
  // One row per chunk: within the batch the first entry for a seq is the one stored.
  const firsts = new Map<string, RecordingChunk>()
  for (const chunk of kept) if (!firsts.has(chunkId(chunk))) firsts.set(chunkId(chunk), chunk)
  const byRecording = groupBy([...firsts.values()], recordingId)
  const inserted = await insertChunks(client, byRecording, environments)
  // The rows that were there before: a second statement, which sees rows other batches committed meanwhile.
  const missed = [...firsts.values()].filter((chunk) => !inserted.has(chunkId(chunk)))
  const storedKeys = new Map<string, string>()
  for (const chunk of firsts.values()) if (inserted.has(chunkId(chunk))) storedKeys.set(chunkId(chunk), chunk.key)
  if (missed.length > 0) {
    const { rows } = await client.query<{ project_id: string; recording_id: string; seq: number; object_key: string }>(
      `SELECT c.project_id, c.recording_id, c.seq, c.object_key FROM recording_chunks c
       JOIN unnest($1::uuid[], $2::uuid[], $3::int[]) AS m(p, r, s) ON c.project_id = m.p AND c.recording_id = m.r AND c.seq = m.s`,
      [missed.map((c) => c.projectId), missed.map((c) => c.recordingId), missed.map((c) => c.seq)],
    )
    for (const row of rows) storedKeys.set(chunkId({ projectId: row.project_id, recordingId: row.recording_id, seq: row.seq }), row.object_key)
  }
  for (const chunk of kept) {
    const stored = storedKeys.get(chunkId(chunk))
    if (stored === chunk.key) outcome.recorded.push(chunk.key)
    else if (stored !== undefined) outcome.resent.push(chunk.key)
  }
  outcome.stored = inserted.size
  outcome.duplicates = kept.length - inserted.size
  const gained = groupBy([...firsts.values()].filter((chunk) => inserted.has(chunkId(chunk))), recordingId)
  await addToRecordings(client, gained, environments)
  return environments
}

/**
 * Inserts the chunk rows, creating each recording's row first when it has none (with no chunks
 * counted yet: addToRecordings counts them). One statement: the rows' foreign key is checked at
 * its end, when the recording exists. Answers the chunks that were new.
 */
async function insertChunks(client: pg.PoolClient, byRecording: Map<string, RecordingChunk[]>, environments: Map<string, string>): Promise<Set<string>> {
  const recordings = [...byRecording.values()].sort((a, b) => (recordingId(a[0]!) < recordingId(b[0]!) ? -1 : 1)).map((chunks) => ({ ...recordingColumns(chunks, environments), n: 0 }))
  const rows = [...byRecording.values()].flat().map((c) => ({ p: c.projectId, r: c.recordingId, seq: c.seq, k: c.key, b: c.bytes, raw: c.rawBytes, f: iso(c.firstAt), l: iso(c.lastAt), rc: iso(c.receivedAt) }))
  const { rows: inserted } = await client.query<{ project_id: string; recording_id: string; seq: number }>(
    `WITH parents AS (
       INSERT INTO recordings (project_id, id, environment_id, release, session_id, user_key, user_label, started_at, last_at, received_at)
       SELECT p, r, e, rel, s, uk, ul, f, l, rc
       FROM json_to_recordset($1::json) AS x(p uuid, r uuid, e uuid, rel text, s text, uk text, ul text, f timestamptz, l timestamptz, rc timestamptz)
       ON CONFLICT DO NOTHING
     )
     INSERT INTO recording_chunks (project_id, recording_id, seq, object_key, bytes, raw_bytes, first_at, last_at, received_at)
     SELECT p, r, seq, k, b, raw, f, l, rc
     FROM json_to_recordset($2::json) AS x(p uuid, r uuid, seq int, k text, b int, raw int, f timestamptz, l timestamptz, rc timestamptz)
     ON CONFLICT DO NOTHING
     RETURNING project_id, recording_id, seq`,
    [JSON.stringify(recordings), JSON.stringify(rows)],
  )
  return new Set(inserted.map((row) => chunkId({ projectId: row.project_id, recordingId: row.recording_id, seq: row.seq })))
}

/**
 * Moves each recording by its new chunks: times widened, pages merged in order of first visit
 * (a batch of chunks older than the recording puts its pages first), counts added, and reopened.
 */
async function addToRecordings(client: pg.PoolClient, gained: Map<string, RecordingChunk[]>, environments: Map<string, string>): Promise<void> {
  if (gained.size === 0) return
  const rows = [...gained.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([, chunks]) => recordingColumns(chunks, environments))
  await client.query(
    `UPDATE recordings AS r SET
       started_at = LEAST(r.started_at, d.f),
       last_at = GREATEST(r.last_at, d.l),
       received_at = GREATEST(r.received_at, d.rc),
       closed_at = NULL,
       pages = (SELECT coalesce(array_agg(page ORDER BY first_visit), '{}') FROM (
                  SELECT page, min(o) AS first_visit
                  FROM unnest(CASE WHEN d.f < r.started_at THEN d.pages || r.pages ELSE r.pages || d.pages END) WITH ORDINALITY AS u(page, o)
                  GROUP BY page ORDER BY min(o) LIMIT ${MAX_PAGES}) AS visits),
       clicks = r.clicks + d.clicks,
       errors = r.errors + d.errors,
       chunks = r.chunks + d.n,
       bytes = r.bytes + d.b,
       max_seq = GREATEST(r.max_seq, d.max_seq),
       environment_id = COALESCE(r.environment_id, d.e),
       release = COALESCE(r.release, d.rel),
       user_key = COALESCE(r.user_key, d.uk),
       user_label = COALESCE(r.user_label, d.ul)
     FROM json_to_recordset($1::json) AS d(p uuid, r uuid, e uuid, rel text, uk text, ul text, f timestamptz, l timestamptz, rc timestamptz,
                                          pages text[], clicks int, errors int, n int, b bigint, max_seq int)
     WHERE r.project_id = d.p AND r.id = d.r`,
    [JSON.stringify(rows)],
  )
}

/** One recording's row values from some of its chunks: times, pages in seq order, counts, and the first chunk's user, release and environment. */
function recordingColumns(chunks: RecordingChunk[], environments: Map<string, string>) {
  const ordered = [...chunks].sort((a, b) => a.seq - b.seq)
  const first = ordered[0]!
  const withUser = ordered.find((chunk) => chunk.user)
  const withRelease = ordered.find((chunk) => chunk.release)
  const withEnvironment = ordered.find((chunk) => chunk.environment)
  const pages = [...new Set(ordered.flatMap((chunk) => chunk.pages))].slice(0, MAX_PAGES)
  const user = withUser?.user
  const label = user ? [user.id, user.username, user.email].find(Boolean) : undefined
  return {
    p: first.projectId,
    r: first.recordingId,
    e: withEnvironment ? (environments.get(environmentKey({ envelope: { projectId: first.projectId }, facts: { environment: withEnvironment.environment } })) ?? null) : null,
    rel: withRelease?.release ?? null,
    s: first.sessionId,
    uk: userKey(first.projectId, user),
    // toWellFormed: the cut may fall inside a surrogate pair.
    ul: label?.slice(0, USER_LABEL_CHARS).toWellFormed() ?? null,
    f: iso(Math.min(...ordered.map((c) => c.firstAt))),
    l: iso(Math.max(...ordered.map((c) => c.lastAt))),
    rc: iso(Math.max(...ordered.map((c) => c.receivedAt))),
    pages,
    clicks: sum(ordered, 'clicks'),
    errors: sum(ordered, 'errors'),
    n: ordered.length,
    b: sum(ordered, 'bytes'),
    max_seq: ordered[ordered.length - 1]!.seq,
  }
}

function sum(chunks: RecordingChunk[], field: 'clicks' | 'errors' | 'bytes'): number {
  return chunks.reduce((total, chunk) => total + chunk[field], 0)
}

function iso(ms: number): string {
  return new Date(ms).toISOString()
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>()
  for (const item of items) {
    const group = groups.get(keyOf(item))
    if (group) group.push(item)
    else groups.set(keyOf(item), [item])
  }
  return groups
}
