/**
 * What other actors ask of the digester (its commands) when a project's setting that the digest
 * depends on changes: the digester's columns of projects (digest_next_at, chat_broken_at,
 * chat_error) are written only here and by the digester's own sweep and steps. Each takes the
 * caller's transaction (or the pool), so the setting and the digest's state change together.
 * removeOldDigests is the cleanup the workers' upkeep sweep asks for (docs/storage.md).
 */
import type { Queryable } from '../../shared/db/index.js'

/**
 * The project's time zone changed: its next due instant is cleared, so the digester's next sweep
 * schedules it again in the new zone (a day already sent is not sent again: one digest per local date).
 */
export async function rescheduleDigest(tx: Queryable, projectId: string): Promise<void> {
  await tx.query('UPDATE projects SET digest_next_at = NULL WHERE id = $1', [projectId])
}

/** A new chat webhook took the test message: a chat the digester found broken is mended. */
export async function mendChat(tx: Queryable, projectId: string): Promise<void> {
  await tx.query(`UPDATE projects SET chat_broken_at = NULL, chat_error = '' WHERE id = $1`, [projectId])
}

/**
 * The chat refused the webhook (another actor's post, an alert's): the project's chat is marked
 * broken as the digester's own delivery marks it, only while webhookUrl is still the connected one
 * (a person may have connected a new one meanwhile). error is the plugin's redacted explanation.
 */
export async function markChatBroken(tx: Queryable, projectId: string, webhookUrl: string, error: string): Promise<void> {
  await tx.query(`UPDATE projects SET chat_broken_at = now(), chat_error = $3 WHERE id = $1 AND chat_webhook_url = $2`, [projectId, webhookUrl, error.slice(0, 500)])
}

/** The states a digest ends in: nothing more happens to it, so it may go once old. */
const ENDED = ['delivered', 'kept', 'empty', 'undelivered']

/**
 * Removes up to limit ended digests (delivered, kept, empty or undelivered) whose day was due
 * before now - keepMs, oldest first, with their items (ON DELETE CASCADE). The immutability
 * triggers guard updates only; removing a whole digest is the retention they leave to its owner.
 * Skips rows another transaction holds. Answers how many went; asked by the worker's upkeep sweep.
 */
export async function removeOldDigests(db: Queryable, keepMs: number, limit: number, now: Date = new Date()): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM digests WHERE id IN (
       SELECT id FROM digests WHERE state = ANY($1::text[]) AND due_at < $2 ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED)`,
    [ENDED, new Date(now.getTime() - keepMs), limit],
  )
  return rowCount ?? 0
}
