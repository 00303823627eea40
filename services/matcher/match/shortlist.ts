/**
 * The shortlist: the tickets a finding could join, read under the environment's lock. Tickets of
 * the finding's project, environment and kind that are not archived: (a) those of its control
 * (its screen, and a name in common: control.ts sameControl), by confirmed checks, 10; (b) the 10
 * nearest to its subject by cosine distance (the HNSW index), among vectors of the same model and
 * input only, kept so that a decision shows the near tickets of other controls it refused. Their
 * union, each with its distance, whether it is of the finding's screen and of its control.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import { toSql } from 'pgvector/pg'
import { textArrayLiteral, type FindingKind, type ShortlistEntry } from '../store/entities.js'

/** How many tickets each half of the shortlist takes (the reference's "top 10 nearest"). */
export const SHORTLIST_EACH = 10

export interface ShortlistQuery {
  projectId: string
  environmentId: string | null
  kind: FindingKind
  /** The finding's control (control.ts) and its subject. */
  screen: string
  names: readonly string[]
  subject: string
  /** The subject's vector and its model; null: only the control's tickets, without distances. */
  embedding: number[] | null
  embeddingModel: string | null
}

interface Row {
  id: string
  checks_confirmed: number
  shares: boolean
  same_control: boolean
  same_subject: boolean
  distance: number | null
}

/** One statement of the shortlist with its parameters. */
export interface Statement {
  sql: string
  params: unknown[]
}

/** The shortlist's two statements for q: its control's tickets, and the nearest when q has a vector. */
export function shortlistStatements(q: ShortlistQuery): { control: Statement; nearest: Statement | undefined } {
  // A finding whose environment was deleted (SET NULL) matches the project's tickets without one.
  const environment = q.environmentId === null ? 'environment_id IS NULL' : 'environment_id = ?'
  const scope = (...before: unknown[]): unknown[] => [...before, q.projectId, ...(q.environmentId === null ? [] : [q.environmentId]), q.kind]
  const where = `project_id = ? AND ${environment} AND kind = ? AND state <> 'archived'`
  const vector = q.embedding && q.embeddingModel ? toSql(q.embedding) : null
  const names = textArrayLiteral(q.names)
  const control = {
    sql: `SELECT id, checks_confirmed, true AS shares, true AS same_control, subject = ? AS same_subject,
                 CASE WHEN embedding_model = ? AND embedding_of = 'subject' THEN embedding <=> ?::vector END AS distance
            FROM tickets WHERE ${where} AND screen = ? AND control_names && ?::text[]
           ORDER BY checks_confirmed DESC, id LIMIT ${SHORTLIST_EACH}`,
    params: [...scope(q.subject, vector ? q.embeddingModel : null, vector), q.screen, names],
  }
  const nearest = vector
    ? {
        sql: `SELECT id, checks_confirmed, screen = ? AS shares, screen = ? AND control_names && ?::text[] AS same_control, subject = ? AS same_subject,
                     embedding <=> ?::vector AS distance
                FROM tickets WHERE ${where} AND embedding_model = ? AND embedding_of = 'subject'
               ORDER BY embedding <=> ?::vector LIMIT ${SHORTLIST_EACH}`,
        params: [...scope(q.screen, q.screen, names, q.subject, vector), q.embeddingModel, vector],
      }
    : undefined
  return { control, nearest }
}

/** The shortlist of q's finding, its control's tickets first, then nearest first (those without a distance last), in tx. */
export async function getShortlist(tx: EntityManager, q: ShortlistQuery): Promise<ShortlistEntry[]> {
  const statements = shortlistStatements(q)
  const control = await tx.execute<Row[]>(statements.control.sql, statements.control.params)
  const nearest = statements.nearest ? await nearestTickets(tx, statements.nearest) : []
  const byId = new Map<string, ShortlistEntry>()
  for (const row of [...control, ...nearest]) {
    byId.set(row.id, { ticketId: row.id, distance: row.distance === null ? null : Number(row.distance), sharesScreen: row.shares, sameControl: row.same_control, sameSubject: row.same_subject, checksConfirmed: Number(row.checks_confirmed) })
  }
  return [...byId.values()].sort(byControlThenNearest)
}

/**
 * Runs the nearest-neighbour statement with the HNSW index's iterative scan (pgvector 0.8): the
 * index walks on until the filters (project, environment, kind, model, not archived) leave enough
 * rows, instead of filtering only its first ef_search candidates, which in a busy database could
 * all be another environment's. relaxed_order may return them slightly out of order: the caller
 * sorts.
 */
async function nearestTickets(tx: EntityManager, statement: Statement): Promise<Row[]> {
  await tx.execute(ITERATIVE_SCAN_SQL)
  return tx.execute<Row[]>(statement.sql, statement.params)
}

/** Turns on the HNSW iterative scan for the rest of the transaction. */
export const ITERATIVE_SCAN_SQL = "SET LOCAL hnsw.iterative_scan = 'relaxed_order'"

function byControlThenNearest(a: ShortlistEntry, b: ShortlistEntry): number {
  if (a.sameControl !== b.sameControl) return a.sameControl ? -1 : 1
  if (a.distance !== b.distance) {
    if (a.distance === null) return 1
    if (b.distance === null) return -1
    return a.distance - b.distance
  }
  return b.checksConfirmed - a.checksConfirmed || (a.ticketId < b.ticketId ? -1 : 1)
}
