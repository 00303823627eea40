/** Events made fast by SQL for the retention and storage tests and bench: small bodies, spread evenly over a time range. */
import type { Redis } from 'ioredis'
import type { Queryable } from '../../shared/db/index.js'
import { addIntakeTally } from '../../shared/domain/intake-tally.js'
import type { StreamKeys } from '../../shared/redis.js'

/** A project and one issue in it; answers their ids. */
export async function seedProjectIssue(db: Queryable, name: string, retentionDays: number | null = null): Promise<{ projectId: string; issueId: string }> {
  const { rows } = await db.query<{ id: string }>('INSERT INTO projects (name, retention_days) VALUES ($1, $2) RETURNING id', [name, retentionDays])
  const projectId = rows[0]!.id
  const issue = await db.query<{ id: string }>(
    `INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, culprit, first_seen, last_seen, event_count, user_count)
     VALUES ($1, 'error', gen_random_uuid()::text, 4, 'new', 'TypeError: x is undefined', 'app.js', now() - interval '400 days', now(), 1000000, 10) RETURNING id`,
    [projectId],
  )
  return { projectId, issueId: issue.rows[0]!.id }
}

/** Inserts count events of the issue received evenly over the `days` days before `until`, in one statement. */
export async function seedEvents(db: Queryable, where: { projectId: string; issueId: string }, count: number, days: number, until = new Date()): Promise<void> {
  await db.query(
    `INSERT INTO events (id, project_id, issue_id, occurred_at, received_at, release, user_key, "grouping", payload)
     SELECT gen_random_uuid(), $1, $2, t, t, '1.0.' || (n % 20), 'u' || (n % 500), '{"version":4}',
            json_build_object('error', json_build_object('type', 'TypeError', 'message', 'x is undefined #' || (n % 1000)), 'context', json_build_object('url', 'https://app.example/p/' || (n % 50)))
     FROM generate_series(1, $3::int) n, LATERAL (SELECT $4::timestamptz - (n * ($5::float8 * 86400 / $3::int)) * interval '1 second' AS t) s`,
    [where.projectId, where.issueId, count, until, days],
  )
}

/**
 * The storage figures the gauge tests expect of a project: 3 events (the oldest 3 hours old),
 * 2048 bytes of recordings, and intake tallies of 4 refused and 9 sampled.
 */
export async function seedStorage(stack: { db: Queryable; redis: Redis; keys: StreamKeys }, projectId: string): Promise<void> {
  const { rows } = await stack.db.query<{ id: string }>(
    `INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, culprit, first_seen, last_seen, event_count, user_count, session_count)
     VALUES ($1, 'error', gen_random_uuid()::text, 4, 'new', 'TypeError', 'totalOf (src/cart.ts:6)', now(), now(), 3, 1, 1) RETURNING id`,
    [projectId],
  )
  await stack.db.query(
    `INSERT INTO events (id, project_id, issue_id, occurred_at, received_at, grouping, payload)
     SELECT gen_random_uuid(), $1, $2, now() - make_interval(hours => n), now() - make_interval(hours => n), '{}', '{}' FROM generate_series(1, 3) n`,
    [projectId, rows[0]!.id],
  )
  await stack.db.query(`INSERT INTO recordings (project_id, id, session_id, started_at, last_at, received_at, bytes) VALUES ($1, gen_random_uuid(), 's', now(), now(), now(), 2048)`, [projectId])
  await addIntakeTally(stack.redis, stack.keys, projectId, 'refused', 4)
  await addIntakeTally(stack.redis, stack.keys, projectId, 'sampled', 9)
}
