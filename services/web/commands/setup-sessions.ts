/**
 * The web side's setup sessions, removed once long expired: asked by the worker's upkeep sweep,
 * since the web side owns setup_sessions (and setup_steps, which go with them by ON DELETE
 * CASCADE) but runs no periodic work of its own.
 */
import type { Queryable } from '../../../shared/db/index.js'

/**
 * Removes up to limit setup sessions whose expiry passed more than keepMs before now, oldest
 * first, skipping rows another transaction holds; answers how many went. A session's project and
 * keys outlive it: only the handshake's record goes.
 */
export async function removeExpiredSetupSessions(db: Queryable, keepMs: number, limit: number, now: Date = new Date()): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM setup_sessions WHERE id IN (
       SELECT id FROM setup_sessions WHERE expires_at < $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [new Date(now.getTime() - keepMs), limit],
  )
  return rowCount ?? 0
}
