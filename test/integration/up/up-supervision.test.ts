import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { createDb } from '../../../shared/db/index.js'
import { createRedis } from '../../../shared/redis.js'
import { SEED_INGEST_KEY } from '../../../shared/db/seed.js'
import { TEST_REDIS_URL } from '../../helpers/env.js'
import { alive, childrenOf, startSvcUp, textOf, type SvcUp } from '../../helpers/processes.js'
import { createTestDatabase, postEvent, sampleEvent, waitFor } from '../../helpers/stack.js'

// Real processes and several stacks in one file: past 80 s under CI load on 2 cores, near tap's
// 120 s default for a file, though each wait inside stays bounded.
t.setTimeout(5 * 60_000)

const headers = { 'Content-Type': 'application/json', 'X-API-Key': SEED_INGEST_KEY }

/** `svc up` with DATABASE_URL (a fresh test database) and the test Redis under a key prefix of its own. */
async function svcUpWithDatabase(t: Test): Promise<{ up: SvcUp; databaseUrl: string }> {
  const databaseUrl = await createTestDatabase(t)
  const prefix = `svctest:up-${process.pid}-${Date.now()}:`
  const redis = createRedis(TEST_REDIS_URL)
  t.teardown(async () => {
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
    redis.disconnect()
  })
  const up = await startSvcUp(t, { DATABASE_URL: databaseUrl, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, SVC_INGRESS_THREADS: '1', LOG_LEVEL: 'warn' })
  return { up, databaseUrl }
}

t.test('svc up with DATABASE_URL restarts a part killed with -9 while the other keeps serving, shows the restarts in health, and Ctrl-C stops every part', async (t) => {
  const { up, databaseUrl } = await svcUpWithDatabase(t)
  const worker = up.part('worker')
  const ingress = up.part('ingress')
  t.ok(worker && ingress, 'a worker and an ingress process run under svc up')

  process.kill(worker!, 'SIGKILL')
  // The ingress does not go down with it: events are accepted while the worker is away.
  const accepted: string[] = []
  for (let i = 0; i < 5; i++) {
    const answer = await postEvent(up.base, sampleEvent({ session_id: `while-away-${i}` }), headers)
    t.equal(answer.status, 202, 'accepted while the worker is down')
    accepted.push(String(answer.body.id))
  }
  await waitFor(async () => /^restarts: 1$/m.test(await textOf(up.health)), 30_000, 100)
  t.not(up.part('worker'), worker, 'a new worker process')
  t.match(up.output(), /worker exited unexpectedly: restarting/, 'the restart is logged')
  await waitFor(async () => /eligible=0/.test(await textOf(up.health)), 30_000, 100)

  process.kill(ingress!, 'SIGKILL')
  await waitFor(async () => (await textOf(`${up.base}/health`)).includes('"restarts":1'), 30_000, 100)
  t.equal((await postEvent(up.base, sampleEvent({ session_id: 'after' }), headers)).status, 202, 'the restarted ingress accepts events')
  t.match(up.output(), /ingress exited unexpectedly: restarting/)

  const db = createDb(databaseUrl, { max: 1 })
  t.teardown(() => db.close())
  await waitFor(async () => (await db.query('SELECT 1 FROM events')).rowCount === 6, 30_000, 100)
  const { rows } = await db.query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1::uuid[])', [accepted])
  t.equal(rows.length, accepted.length, 'the events accepted while the worker was down are stored')

  const parts = childrenOf(up.pid)
  t.equal(await up.stop(), 0, 'Ctrl-C exits cleanly')
  t.same(parts.filter((p) => alive(p.pid)), [], 'no part outlives svc up')
})

t.test('svc up on embedded defaults restarts its all-in-one process after kill -9, with the data kept', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-up-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const up = await startSvcUp(t, { SVC_DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: undefined, REDIS_URL: undefined })
  t.equal((await postEvent(up.base, sampleEvent({ session_id: 'before' }), headers)).status, 202)
  await waitFor(async () => /eligible=0/.test(await textOf(up.health)), 30_000, 100)

  const first = up.part('all-in-one')
  process.kill(first!, 'SIGKILL')
  await waitFor(async () => (await textOf(`${up.base}/health`)).includes('"restarts":1'), 60_000, 100)
  t.not(up.part('all-in-one'), first, 'a new all-in-one process')
  t.equal((await postEvent(up.base, sampleEvent({ session_id: 'after' }), headers)).status, 202)
  await waitFor(async () => /eligible=0/.test(await textOf(up.health)), 30_000, 100)
  t.match(await textOf(up.health), /^restarts: 1$/m)
  t.equal(await up.stop(), 0)
})

t.test('parts whose svc up was killed with -9 stop by themselves: none is left serving without its supervisor', async (t) => {
  const { up } = await svcUpWithDatabase(t)
  const parts = [up.part('worker'), up.part('ingress')]
  t.ok(parts.every((pid) => pid !== undefined), 'a worker and an ingress run')
  process.kill(up.pid, 'SIGKILL')
  await waitFor(async () => parts.every((pid) => !alive(pid!)), 20_000, 100)
  t.same(parts.filter((pid) => alive(pid!)), [], 'both parts exited once their supervisor was gone')
  t.match(up.output(), /supervisor gone: stopping/, 'and said why')
})
