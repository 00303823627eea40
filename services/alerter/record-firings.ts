/**
 * A batch's firings and the deliveries that carry them, in one transaction (docs/alerts.md). Each
 * (issue, rule) pair is locked (an advisory lock, sorted), then fires only when it did not in the
 * hour before; its window starts at the firing, and the unique key (issue, rule, window) holds even
 * if two consumers met the same entry. A project whose chat is connected and not broken gets its
 * firings folded into its gathering delivery (pending, no message yet), or a new one due after the
 * gather delay; otherwise (or for events received before the chat was connected) the firings are
 * recorded without a delivery.
 */
import type { Db, Queryable } from '../../shared/db/index.js'
import type { Candidate } from './decide.js'
import type { AlertKind } from './rules.js'

/** What a batch recorded: the firings' count and the deliveries it opened (dispatched once the gather delay ends). */
export interface Recorded {
  fired: number
  opened: string[]
}

/** The keys "issue|kind" among pairs that fired in the hour before now. */
export async function firedWithinHour(db: Queryable, pairs: ReadonlyArray<readonly [string, AlertKind]>): Promise<Set<string>> {
  if (pairs.length === 0) return new Set()
  const { rows } = await db.query<{ issue_id: string; kind: string }>(
    `SELECT DISTINCT f.issue_id, f.kind FROM alert_firings f JOIN unnest($1::uuid[], $2::text[]) AS w(i, k) ON f.issue_id = w.i AND f.kind = w.k
      WHERE f.window_start > now() - interval '1 hour'`,
    [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
  )
  return new Set(rows.map((row) => `${row.issue_id}|${row.kind}`))
}

/** Records the candidates that may fire, and folds them into deliveries; gatherMs is the new deliveries' delay. */
export async function recordFirings(db: Db, candidates: readonly Candidate[], gatherMs: number): Promise<Recorded> {
  if (candidates.length === 0) return { fired: 0, opened: [] }
  return db.withTransaction(async (client) => {
    const keys = [...new Set(candidates.map((c) => `${c.issueId}|${c.kind}`))].sort()
    // One lock order for every consumer: two batches naming the same pairs wait, never deadlock.
    for (const key of keys) await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 86))', [key])
    const fired = await firedWithinHour(client, candidates.map((c) => [c.issueId, c.kind] as const))
    const fresh = candidates.filter((c) => !fired.has(`${c.issueId}|${c.kind}`))
    if (fresh.length === 0) return { fired: 0, opened: [] }
    const { rows: inserted } = await client.query<{ id: string; project_id: string; received_at: string | null }>(
      `INSERT INTO alert_firings (project_id, issue_id, kind, window_start, detail)
       SELECT p, i, k, now(), d FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::jsonb[]) AS x(p, i, k, d)
       ON CONFLICT (issue_id, kind, window_start) DO NOTHING
       RETURNING id, project_id, detail->>'receivedAt' AS received_at`,
      [fresh.map((c) => c.projectId), fresh.map((c) => c.issueId), fresh.map((c) => c.kind), fresh.map((c) => JSON.stringify(c.detail))],
    )
    const projects = [...new Set(inserted.map((row) => row.project_id))].sort()
    const { rows: ready } = await client.query<{ id: string; connected_at: Date }>(
      `SELECT id, chat_connected_at AS connected_at FROM projects WHERE id = ANY($1::uuid[]) AND chat_webhook_url <> '' AND chat_connected_at IS NOT NULL AND chat_broken_at IS NULL`,
      [projects],
    )
    const opened: string[] = []
    for (const { id: projectId, connected_at: connectedAt } of ready) {
      // A chat connected after the events were received is not told about them: what it hears starts with it.
      const firings = inserted.filter((row) => row.project_id === projectId && (row.received_at === null || Number(row.received_at) >= connectedAt.getTime())).map((row) => row.id)
      if (firings.length === 0) continue
      // The delivery still gathering: its claim (state sending) ends the gathering under this row lock.
      const { rows: gathering } = await client.query<{ id: string }>(
        `SELECT id FROM alert_deliveries WHERE project_id = $1 AND state = 'pending' AND message IS NULL ORDER BY created_at LIMIT 1 FOR UPDATE`,
        [projectId],
      )
      let deliveryId = gathering[0]?.id
      if (deliveryId === undefined) {
        const { rows } = await client.query<{ id: string }>(
          `INSERT INTO alert_deliveries (project_id, not_before) VALUES ($1, now() + make_interval(secs => $2)) RETURNING id`,
          [projectId, gatherMs / 1000],
        )
        deliveryId = rows[0]!.id
        opened.push(deliveryId)
      }
      await client.query('UPDATE alert_firings SET delivery_id = $1 WHERE id = ANY($2::uuid[])', [deliveryId, firings])
    }
    return { fired: inserted.length, opened }
  })
}
