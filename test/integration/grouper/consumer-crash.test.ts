import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { GROUPS } from '../../../shared/topology.js'
import { childEnv } from '../../helpers/env.js'
import { postEvent, sampleEvent, startTestStack, waitFor } from '../../helpers/stack.js'

const SVC = fileURLToPath(new URL('../../../bin/svc.js', import.meta.url))
const TOTAL = 3000
const CONCURRENCY = 16

t.test('a grouper killed mid-batch under load loses nothing: every accepted event is grouped exactly once after reclaim', async (t) => {
  const lease = { SVC_STREAM_LEASE_MS: '1000' }
  const stack = await startTestStack(t, { env: { ...lease, SVC_EVENTS_PER_KEY_PER_MINUTE: '1000000' } })
  const child = spawn(process.execPath, [SVC, 'worker'], {
    env: childEnv({
      ...lease,
      DATABASE_URL: stack.databaseUrl,
      REDIS_URL: stack.redisUrl,
      REDIS_KEY_PREFIX: stack.prefix,
      WORKER_HEALTH_PORT: '0',
      LOG_LEVEL: 'error',
    }),
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const childExit = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)))
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })

  const accepted: string[] = []
  let sent = 0
  const send = async (): Promise<void> => {
    while (sent < TOTAL) {
      const n = sent++
      const body = sampleEvent({ session_id: `s${n % 50}`, user: { id: `u${n % 7}` }, error: { type: 'Error', message: `bug ${n % 5}`, stack: `Error: bug\n    at render${n % 5} (http://localhost/app.js:${n % 5}:1)` } })
      const answer = await postEvent(stack.baseUrl, body, { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey })
      if (answer.status === 202) accepted.push(String(answer.body.id))
    }
  }
  const load = Promise.all(Array.from({ length: CONCURRENCY }, send))

  // Kill only once the child is holding delivered-but-unacked entries: a batch is in flight.
  await waitFor(async () => {
    const stored = (await stack.db.query('SELECT 1 FROM events LIMIT 1')).rowCount
    const pending = (await stack.redis.xpending(stack.keys.events, GROUPS.grouper)) as [number, ...unknown[]]
    return stored && pending[0] > 0
  }, 30_000, 5)
  child.kill('SIGKILL')
  t.equal(await childExit, 'SIGKILL', 'the first grouper was killed')
  const pendingAtKill = ((await stack.redis.xpending(stack.keys.events, GROUPS.grouper)) as [number])[0]
  t.ok(pendingAtKill > 0, `${pendingAtKill} entries were in flight when it died`)

  await load
  t.equal(accepted.length, TOTAL, 'every event was accepted')
  const worker = await stack.startWorker()
  await waitFor(async () => {
    const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events')
    return rows[0]!.n === TOTAL
  }, 30_000, 100)
  await waitFor(async () => (await worker.services[0]!.depth()).eligible === 0, 10_000, 50)

  const { rows: ids } = await stack.db.query<{ id: string }>('SELECT id FROM events')
  t.same(new Set(ids.map((r) => r.id)), new Set(accepted), 'the stored events are exactly the accepted ones')
  const { rows: sums } = await stack.db.query<{ events: number; issues: number }>('SELECT sum(event_count)::int AS events, count(*)::int AS issues FROM issues')
  t.equal(sums[0]!.events, TOTAL, 'issue counters add up to the accepted events: nothing counted twice')
  t.equal(sums[0]!.issues, 5, 'five bugs, five issues')
  const { rows: actors } = await stack.db.query<{ sessions: number }>('SELECT sum(session_count)::int AS sessions FROM issues')
  const { rows: distinct } = await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM issue_actors WHERE actor_kind = 's'`)
  t.equal(actors[0]!.sessions, distinct[0]!.n, 'session counters match the distinct session rows')
  t.equal((await worker.services[0]!.depth()).deadLettered, 0, 'nothing was dead-lettered')
})
