/**
 * MikroORM for the tables an actor owns as a domain (the investigator's first): entities, unit of
 * work, optimistic locking. The grouper's bulk tables stay on pg and SQL (shared/db/index.ts); each table
 * is reached one way only. Against an external PostgreSQL the ORM keeps a small pool of its own;
 * against the embedded PGlite, which serves one connection at a time, it borrows the Db pool's one
 * connection for each query or transaction and hands it back at once, so both ways share it.
 */
import { MikroORM, type EntitySchema, type Options } from '@mikro-orm/postgresql'
import { PostgreSqlKnexDialect } from '@mikro-orm/knex'
import knexModule from 'knex'
import pg from 'pg'
import type { Db } from './index.js'

export type Orm = MikroORM

/** Connections the ORM may hold against an external database; its work is a few rows per step. */
const EXTERNAL_POOL_MAX = 4

/** Opens the ORM over db's database with the given entities; no schema changes (migrations own those). */
export async function createOrm(db: Db, entities: EntitySchema[]): Promise<Orm> {
  const common: Options = {
    entities,
    discovery: { warnWhenNoEntities: false },
    debug: false,
    // Entities are read and written inside explicit forks (em.fork()) per unit of work.
    allowGlobalContext: false,
    forceUtcTimezone: true,
  }
  if (!db.singleConnection) {
    return MikroORM.init({ ...common, clientUrl: db.connectionString, pool: { min: 0, max: EXTERNAL_POOL_MAX } })
  }
  return MikroORM.init({ ...common, clientUrl: db.connectionString, driverOptions: borrowingKnex(db) })
}

/**
 * A knex instance whose "connections" are the Db pool's one connection, borrowed per use: the pool
 * of knex gives it back after a few milliseconds idle, so the grouper's SQL never waits long. The
 * timestamp parsers MikroORM sets per connection travel with each query instead, so the shared
 * connection's own parsers (Dates for the pg side) stay as they are.
 */
function borrowingKnex(db: Db): ReturnType<typeof knexModule.knex> {
  const types = new pg.TypeOverrides()
  for (const oid of [1082, 1114, 1184, 1186]) types.setTypeParser(oid, (text: string) => text)
  class BorrowingDialect extends PostgreSqlKnexDialect {
    async _acquireOnlyConnection(): Promise<unknown> {
      const client = await db.pool.connect()
      let released = false
      const release = (error?: Error): void => {
        if (released) return
        released = true
        client.release(error)
      }
      return {
        query(config: unknown, callback?: (error: Error | null, result?: unknown) => void) {
          const withTypes = typeof config === 'object' && config !== null ? { ...config, types } : { text: config, types }
          return callback ? client.query(withTypes as pg.QueryConfig, callback as never) : client.query(withTypes as pg.QueryConfig)
        },
        on() {},
        end(callback?: () => void) {
          release()
          callback?.()
        },
      }
    }
  }
  return knexModule.knex({
    client: BorrowingDialect as never,
    connection: {},
    pool: { min: 0, max: 1, idleTimeoutMillis: 20, reapIntervalMillis: 20 },
  })
}
