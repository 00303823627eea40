/**
 * What every fault scenario must show once the fault is over: each event sent, the ones refused or
 * cut off during the fault sent again as the SDK does, was accepted and is stored exactly once
 * (an event whose first answer was lost after it was queued included: its event_id makes the
 * resend the same event), and counted once in its issue; nothing waits in a retry backoff or was
 * dead-lettered. And the figure an operator asks after a fault: how long the slowest accepted event
 * took from the ingress's receipt to its row (events.stored_at − events.received_at).
 */
import type { Redis } from 'ioredis'
import type { Test } from 'tap'
import type { Db } from '../../shared/db/index.js'
import { streamKeys } from '../../shared/redis.js'
import { queueDepth } from '../../shared/streams/index.js'
import { GROUPS } from '../../shared/topology.js'
import { patience } from '../helpers/patience.js'
import type { LoadReport } from './load.js'

export interface Stored {
  /** Accepted events, all stored. */
  accepted: number
  /** Receipt to row, of the slowest accepted event and the median one. */
  slowestMs: number
  medianMs: number
}

export interface Where {
  db: Db
  redis: Redis
  /** The stack's REDIS_KEY_PREFIX. */
  prefix: string
}

/**
 * Waits (up to patience(withinMs)) until every accepted marker has its row and the group has nothing left,
 * then asserts: none missing, none twice, issue counters match the rows, no retry or dead letter.
 * Prints the scenario's figures as a TAP comment.
 */
export async function expectStoredOnce(t: Test, where: Where, load: LoadReport, label: string, withinMs = 60_000): Promise<Stored> {
  const markers = [...load.accepted.keys()]
  t.ok(markers.length > 0, `${label}: the load was accepted at all (${markers.length} events)`)
  t.same(load.unaccepted.slice(0, 3), [], `${label}: every event refused or cut off during the fault was accepted when sent again (${load.resent} sent again)`)
  const keys = streamKeys(where.prefix)
  const limitMs = patience(withinMs)
  const deadline = Date.now() + limitMs
  let stored = 0
  let settled = false
  while (Date.now() < deadline) {
    const { rows } = await where.db.query<{ n: number }>('SELECT count(DISTINCT session_id)::int AS n FROM events WHERE session_id = ANY($1)', [markers])
    stored = rows[0]!.n
    const depth = await queueDepth(where.redis, keys.events, GROUPS.grouper)
    settled = stored === markers.length && depth.eligible === 0
    if (settled) break
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  t.equal(stored, markers.length, `${label}: every accepted event is stored (within ${limitMs / 1000} s)`)
  t.ok(settled, `${label}: the events stream is drained`)

  const twice = await where.db.query<{ session_id: string; n: number }>('SELECT session_id, count(*)::int AS n FROM events GROUP BY session_id HAVING count(*) > 1 LIMIT 5')
  t.same(twice.rows, [], `${label}: no event is stored twice, resent ones included`)
  const counts = await where.db.query<{ rows: number; counted: number; sessions: number; actors: number }>(
    `SELECT (SELECT count(*) FROM events)::int AS rows,
            (SELECT coalesce(sum(event_count), 0) FROM issues)::int AS counted,
            (SELECT coalesce(sum(session_count), 0) FROM issues)::int AS sessions,
            (SELECT count(*) FROM issue_actors WHERE actor_kind = 's')::int AS actors`,
  )
  const c = counts.rows[0]!
  t.equal(c.counted, c.rows, `${label}: issue event counts add up to the rows: no batch was counted twice`)
  t.equal(c.sessions, c.actors, `${label}: session counts add up to the sessions recorded`)
  const depth = await queueDepth(where.redis, keys.events, GROUPS.grouper)
  t.same({ heldBack: depth.heldBack, deadLettered: depth.deadLettered }, { heldBack: 0, deadLettered: 0 }, `${label}: nothing waits in a retry backoff or was dead-lettered`)

  const timing = await where.db.query<{ slowest: number; median: number }>(
    `SELECT max(extract(epoch FROM stored_at - received_at) * 1000)::int AS slowest,
            (percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM stored_at - received_at) * 1000))::int AS median
     FROM events WHERE session_id = ANY($1)`,
    [markers],
  )
  t.equal(c.rows, markers.length, `${label}: the rows are exactly the accepted events`)
  const result: Stored = { accepted: markers.length, slowestMs: timing.rows[0]!.slowest, medianMs: timing.rows[0]!.median }
  const refused = [...load.refused].map(([reason, n]) => `${reason} ×${n}`).join(', ') || 'none'
  t.comment(`${label}: sent ${load.sent.length}; first sends refused or failed: ${refused}; sent again ${load.resent}; accepted and stored ${c.rows}; slowest event stored ${result.slowestMs} ms after receipt (median ${result.medianMs} ms)`)
  return result
}
