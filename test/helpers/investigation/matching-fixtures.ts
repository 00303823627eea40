/**
 * Rows for matching's tests and benchmark, written straight to the tables (as the scan would leave
 * them): a project with environments, closed recordings, findings with hand-made vectors, and many
 * tickets at once. Not used by the service itself.
 */
import { randomUUID } from 'node:crypto'
import { toSql } from 'pgvector/pg'
import type { Queryable } from '../../../shared/db/index.js'
import { EMBEDDING_DIMENSIONS } from '../../../shared/plugins/embeddings-types.js'
import { controlNames, foldLabel, screenOf, stableId } from '../../../services/matcher/friction/control.js'
import type { FindingKind } from '../../../services/matcher/store/entities.js'

/** The model name hand-made vectors are stored under. */
export const HAND_MADE_MODEL = 'test:hand-made'

/** The unit vector along axis i. */
export function axis(i: number): number[] {
  const vector = new Array<number>(EMBEDDING_DIMENSIONS).fill(0)
  vector[i] = 1
  return vector
}

/** A unit vector at cosine distance d from axis a, turned towards axis b (a ≠ b). */
export function atDistance(a: number, b: number, d: number): number[] {
  const cos = 1 - d
  const vector = axis(a)
  vector[a] = cos
  vector[b] = Math.sqrt(1 - cos * cos)
  return vector
}

/** The unit vector of weights given per axis ({ 0: 0.8, 1: 0.6 }). */
export function blend(weights: Record<number, number>): number[] {
  const vector = new Array<number>(EMBEDDING_DIMENSIONS).fill(0)
  for (const [index, weight] of Object.entries(weights)) vector[Number(index)] = weight
  const norm = Math.hypot(...vector)
  return vector.map((value) => value / norm)
}

/** Cosine distance of two vectors (what pgvector's <=> answers). */
export function cosineDistance(a: readonly number[], b: readonly number[]): number {
  let dot = 0
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!
  return 1 - dot / (Math.hypot(...a) * Math.hypot(...b))
}

/** A new project with two environments, production and staging. */
export async function addProject(db: Queryable): Promise<{ projectId: string; production: string; staging: string }> {
  const { rows } = await db.query<{ id: string }>("INSERT INTO projects (name) VALUES ('matching shop') RETURNING id")
  const projectId = rows[0]!.id
  const envs = await db.query<{ id: string; name: string }>("INSERT INTO environments (project_id, name) VALUES ($1, 'production'), ($1, 'staging') RETURNING id, name", [projectId])
  const id = (name: string): string => envs.rows.find((row) => row.name === name)!.id
  return { projectId, production: id('production'), staging: id('staging') }
}

export interface FindingFixture {
  projectId: string
  environmentId: string | null
  kind?: FindingKind
  page?: string
  target?: string
  /** Its control's names and its subject: by default those the scan gives a target of this form (tag#id "Words"), on the page's screen. */
  names?: string[]
  subject?: string
  narrative?: string
  userKey?: string | null
  /** A vector already stored with HAND_MADE_MODEL (as if embedded earlier). */
  embedding?: number[]
  /** Another recording's id to add it to; a new closed recording of its own by default. */
  recordingId?: string
  at?: Date
}

/** A closed recording and one finding in it (its own unless recordingId is given); answers the finding's id. */
export async function addFinding(db: Queryable, f: FindingFixture): Promise<string> {
  const at = f.at ?? new Date()
  const userKey = f.userKey === undefined ? `user-${randomUUID()}` : f.userKey
  const recordingId = f.recordingId ?? randomUUID()
  if (!f.recordingId) {
    await db.query(
      `INSERT INTO recordings (project_id, id, environment_id, session_id, user_key, started_at, last_at, received_at, closed_at, pages)
       VALUES ($1, $2, $3, $4, $5, $6, $6, $6, $6, ARRAY[$7::text])`,
      [f.projectId, recordingId, f.environmentId, `session-${recordingId}`, userKey, at, f.page ?? '/checkout'],
    )
  }
  const page = f.page ?? '/checkout'
  const target = f.target ?? 'button#pay "Pay now"'
  const screen = screenOf(page)
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO friction_findings (project_id, environment_id, recording_id, kind, page, target, at, user_key, session_id, narrative, screen, control_names, subject, embedding, embedding_model, embedding_of)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::text[], $13, $14::vector, $15, $16) RETURNING id`,
    [
      f.projectId, f.environmentId, recordingId, f.kind ?? 'dead_click', page, target, at, userKey, `session-${recordingId}`, f.narrative ?? 'Clicked "Pay now" on /checkout and nothing happened',
      screen, f.names ?? namesOfTarget(target), f.subject ?? `${target} on ${screen}`,
      f.embedding ? toSql(f.embedding) : null, f.embedding ? HAND_MADE_MODEL : null, f.embedding ? 'subject' : null,
    ],
  )
  return rows[0]!.id
}

/** The names the scan gives a target written tag#id "Words" whose words no other element of its page shows. */
export function namesOfTarget(target: string): string[] {
  const [, tag = 'element', id = '', words = ''] = /^([a-z0-9-]+)(?:#([^ ."]+))?[^ ]*(?: "(.*)")?$/.exec(target) ?? []
  return controlNames({ tag, id: stableId(id), label: foldLabel(words), labelShared: false, context: undefined })
}

/**
 * The target of the g-th seeded ticket (SQL over g), which is also its one name: an id without a
 * digit (g's digits as letters, 12 → bc), as a stable id has none.
 */
const SEEDED_TARGET_SQL = "'button#seeded-' || translate(f.g::text, '0123456789', 'abcdefghij')"

/**
 * count tickets (candidate, kind, each with its friction-kind issue, no evidence of their own), the
 * g-th on page <page>g (all on one screen) as the control SEEDED_TARGET_SQL names, with random
 * unit vectors of HAND_MADE_MODEL, in one environment, written in a few statements. The HNSW index
 * is dropped for the load and built again after from its own definition (as pgvector advises for a
 * bulk load: about ten times faster than keeping it row by row); for a scratch database only.
 */
export async function addRandomTickets(db: Queryable, o: { projectId: string; environmentId: string; count: number; kind?: FindingKind; page?: string }): Promise<void> {
  const { rows: indexes } = await db.query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'tickets_embedding'")
  if (indexes.length !== 1) throw new Error('tickets_embedding is missing: run the migrations first')
  await db.query('DROP INDEX tickets_embedding')
  const batch = 2000
  const page = o.page ?? '/seeded/'
  for (let done = 0; done < o.count; done += batch) {
    const n = Math.min(batch, o.count - done)
    await db.query(
      `WITH fresh AS (SELECT gen_random_uuid() AS ticket, g FROM generate_series($8::int + 1, $8::int + $3::int) g),
            issue AS (
              INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, first_seen, last_seen)
              SELECT $1, 'friction', 'ticket:' || ticket, 4, 'candidate', 'seeded problem ' || g, now(), now() FROM fresh
              RETURNING id, fingerprint)
       INSERT INTO tickets (id, project_id, environment_id, issue_id, kind, page, target, narrative, screen, control_names, subject, embedding, embedding_model, embedding_of, pages, matched, users)
       SELECT f.ticket, $1, $2, i.id, $4, $5::text || f.g, ${SEEDED_TARGET_SQL}, 'seeded problem ' || f.g,
              $7, ARRAY[${SEEDED_TARGET_SQL}], ${SEEDED_TARGET_SQL} || ' on ' || $7,
              l2_normalize(ARRAY(SELECT random() - 0.5 + 0 * f.g FROM generate_series(1, ${EMBEDDING_DIMENSIONS}))::vector), $6, 'subject',
              ARRAY[$5::text || f.g], 0, 0
         FROM fresh f JOIN issue i ON i.fingerprint = 'ticket:' || f.ticket`,
      [o.projectId, o.environmentId, n, o.kind ?? 'dead_click', page, HAND_MADE_MODEL, screenOf(`${page}1`), done],
    )
  }
  await db.query(indexes[0]!.indexdef)
  await db.query('ANALYZE tickets')
}
