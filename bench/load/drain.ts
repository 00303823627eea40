/**
 * The drain of bench:ingest: a pre-filled events stream grouped and stored by `svc worker`
 * processes, the clock stopped when every event is in PostgreSQL and the group has nothing left.
 * Run with one worker process and with several, it shows what scaling out buys on this machine.
 */
import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { Db } from '../../shared/db/index.js'
import { packedEntryFields, packedRecord } from '../../shared/domain/event.js'
import { SEED_PROJECT_ID } from '../../shared/db/seed.js'
import { queueDepth } from '../../shared/streams/index.js'
import { GROUPS } from '../../shared/topology.js'
import { child, stopChild, SVC, waitHttp } from './children.js'
import { realisticEvent } from './events.js'

export interface DrainSetup {
  db: Db
  redis: Redis
  stream: string
  /** The environment of `svc worker` (database, Redis, key prefix). */
  env: Record<string, string>
  events: number
  /** Events per packed entry, as the ingress packed them in the accepted rounds. */
  perEntry: number
  /** Health port of the first worker; the others take the ports after it. */
  healthPort: number
}

export interface Drained {
  /** Events stored after the clock started (the workers may begin before every one listens). */
  counted: number
  seconds: number
  eventsPerSecond: number
  issues: number
}

/** Empties the tables and the stream, fills it with setup.events events, and times `workers` worker processes draining it. */
export async function measureDrain(setup: DrainSetup, workers: number): Promise<Drained> {
  const { db, redis, stream } = setup
  await redis.del(stream)
  await db.query('TRUNCATE events, event_receipts, issue_actors, issues CASCADE')
  await fillStream(redis, stream, setup.events, setup.perEntry)
  const procs = Array.from({ length: workers }, (_, i) => child([SVC, 'worker'], { ...setup.env, WORKER_HEALTH_PORT: String(setup.healthPort + i) }))
  try {
    // The clock starts once every worker process is up (its /health answers), so the figure is the
    // grouper's rate, not Node's start-up time.
    for (let i = 0; i < workers; i++) await waitHttp(`http://127.0.0.1:${setup.healthPort + i}/health`)
    const started = performance.now()
    const { rows: early } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM events')
    // Drained when the group has nothing undelivered, unacknowledged or held back: entries are
    // acknowledged only after their events commit. Asking Redis is cheap; counting the events
    // table every 20 ms was not, and took the cores the workers were being timed on.
    for (;;) {
      const depth = await queueDepth(redis, stream, GROUPS.grouper)
      if (depth.eligible + depth.heldBack === 0) break
      await new Promise((r) => setTimeout(r, 20))
    }
    const seconds = (performance.now() - started) / 1000
    const { rows } = await db.query<{ n: number; issues: number }>('SELECT (SELECT count(*) FROM events)::int AS n, (SELECT count(*) FROM issues)::int AS issues')
    if (rows[0]!.n !== setup.events) throw new Error(`drain with ${workers} workers: ${rows[0]!.n} of ${setup.events} events stored`)
    const counted = setup.events - early[0]!.n
    return { counted, seconds, eventsPerSecond: counted / seconds, issues: rows[0]!.issues }
  } finally {
    for (const proc of procs) await stopChild(proc)
  }
}

/** Puts events varied events on the stream, perEntry to a packed entry, for a group created first. */
async function fillStream(redis: Redis, stream: string, events: number, perEntry: number): Promise<void> {
  await redis.xgroup('CREATE', stream, GROUPS.grouper, '0', 'MKSTREAM')
  for (let i = 0; i < events; i += 1000) {
    const pipeline = redis.pipeline()
    for (let j = i; j < Math.min(events, i + 1000); j += perEntry) {
      const records: string[] = []
      for (let k = j; k < Math.min(events, i + 1000, j + perEntry); k++) {
        records.push(packedRecord({ id: randomUUID(), projectId: SEED_PROJECT_ID, keyId: 'seede2e00001', receivedAt: Date.now(), body: JSON.stringify(realisticEvent(k)) }))
      }
      pipeline.xadd(stream, '*', ...packedEntryFields(records))
    }
    await pipeline.exec()
  }
}
