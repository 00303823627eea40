/**
 * The shortlist: the tickets a finding could join, read under the environment's lock. Tickets of
 * the finding's project, environment and kind that are not archived: (a) those seen on the
 * finding's page (`pages && ARRAY[page]`, the GIN index), top 10 by confirmed checks; (b) the 10
 * nearest to its narrative by cosine distance (the HNSW index), among vectors of the same model
 * only. Their union, each with its distance.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import { toSql } from 'pgvector/pg'
import type { FindingKind, ShortlistEntry } from '../store/entities.js'

/** How many tickets each half of the shortlist takes (the reference's "top 10 nearest"). */
export const SHORTLIST_EACH = 10

export interface ShortlistQuery {
  projectId: string
  environmentId: string | null
  kind: FindingKind
  page: string
  /** The narrative's vector and its model; null: only the screen half, without distances. */
  embedding: number[] | null
  embeddingModel: string | null
}

interface Row {
  id: string
  checks_confirmed: number
  shares: boolean
  distance: number | null
}

/** One statement of the shortlist with its parameters. */
export interface Statement {
  sql: string
  params: unknown[]
}

/** The shortlist's two statements for q: the screen half, and the nearest half when q has a vector. */
export function shortlistStatements(q: ShortlistQuery): { screen: Statement; nearest: Statement | undefined } {
  // A finding whose environment was deleted (SET NULL) matches the project's tickets without one.
  const environment = q.environmentId === null ? 'environment_id IS NULL' : 'environment_id = ?'
  const scope = (...before: unknown[]): unknown[] => [...before, q.projectId, ...(q.environmentId === null ? [] : [q.environmentId]), q.kind]
  const where = `project_id = ? AND ${environment} AND kind = ? AND state <> 'archived'`
  const vector = q.embedding && q.embeddingModel ? toSql(q.embedding) : null
  const screen = {
    sql: `SELECT id, checks_confirmed, true AS shares, CASE WHEN embedding_model = ? THEN embedding <=> ?::vector END AS distance
            FROM tickets WHERE ${where} AND pages && ARRAY[?]::text[]
           ORDER BY checks_confirmed DESC, id LIMIT ${SHORTLIST_EACH}`,
    params: [...scope(vector ? q.embeddingModel : null, vector), q.page],
  }
  const nearest = vector
    ? {
        sql: `SELECT id, checks_confirmed, pages && ARRAY[?]::text[] AS shares, embedding <=> ?::vector AS distance
                FROM tickets WHERE ${where} AND embedding_model = ?
               ORDER BY embedding <=> ?::vector LIMIT ${SHORTLIST_EACH}`,
        params: [...scope(q.page, vector), q.embeddingModel, vector],
      }
    : undefined
  return { screen, nearest }
}

/** The shortlist of q's finding, nearest first (those without a distance last), in tx. */
export async function getShortlist(tx: EntityManager, q: ShortlistQuery): Promise<ShortlistEntry[]> {
  const statements = shortlistStatements(q)
  const screen = await tx.execute<Row[]>(statements.screen.sql, statements.screen.params)
  const nearest = statements.nearest ? await nearestTickets(tx, statements.nearest) : []
  const byId = new Map<string, ShortlistEntry>()
  for (const row of [...screen, ...nearest]) {
    byId.set(row.id, { ticketId: row.id, distance: row.distance === null ? null : Number(row.distance), sharesScreen: row.shares, checksConfirmed: Number(row.checks_confirmed) })
  }
  return [...byId.values()].sort(nearestFirst)
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

function nearestFirst(a: ShortlistEntry, b: ShortlistEntry): number {
  if (a.distance !== b.distance) {
    if (a.distance === null) return 1
    if (b.distance === null) return -1
    return a.distance - b.distance
  }
  return b.checksConfirmed - a.checksConfirmed || (a.ticketId < b.ticketId ? -1 : 1)
}
