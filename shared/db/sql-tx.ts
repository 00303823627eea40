/**
 * The transaction an owner's command runs in when another actor asks it to change a row: the
 * caller's own, whichever way it reaches PostgreSQL (a pg client or pool, or a MikroORM
 * EntityManager inside em.transactional), so the owner keeps the SQL of its table and the caller
 * keeps its atomicity. Commands write their statements with ? placeholders, as the ORM takes them;
 * arrays travel as one JSON text, since the ORM's raw bindings would spread them into a list.
 */
import type pg from 'pg'
import type { Queryable } from './index.js'

/** What MikroORM's EntityManager offers for raw SQL (structurally: the kernel loads no ORM for it). */
export interface ExecutesSql {
  execute(sql: string, params?: unknown[]): Promise<unknown>
}

/** A caller's transaction: pg (Queryable) or an EntityManager (ExecutesSql). */
export type SqlTx = Queryable | ExecutesSql

/** Runs sql (? placeholders) with params in tx and answers its rows. */
export async function runSql<R extends pg.QueryResultRow>(tx: SqlTx, sql: string, params: readonly unknown[]): Promise<R[]> {
  if ('execute' in tx) return (await tx.execute(sql, [...params])) as R[]
  let n = 0
  const { rows } = await tx.query<R>(sql.replace(/\?/g, () => `$${++n}`), [...params])
  return rows
}
