import t from 'tap'
import { sleep, startSteadyLoad } from './load.js'
import { startOwnPostgres } from './servers.js'
import { linesMatching, supervisedStack, warningsIn } from './stack.js'
import { expectStoredOnce } from './verify.js'

// Bounded: a scenario that has not recovered by then has failed (the runner's default is 2 min a file).
t.setTimeout(5 * 60_000)

const RATE = 150

t.test('PostgreSQL stopped (pg_ctl stop -m fast) under load and started 5 s later: nothing exits, the ingress keeps accepting, the worker holds its batches and resumes, and every accepted event is stored once', async (t) => {
  const server = await startOwnPostgres(t)
  const stack = await supervisedStack(t, { databaseUrl: server.url })
  const parts = stack.pids()
  const load = startSteadyLoad(stack.base, stack.key, RATE)
  await sleep(4000)
  server.stop()
  const stoppedAt = Date.now()
  const acceptedBefore = load.acceptedSoFar()
  await sleep(5000)
  t.ok(load.acceptedSoFar() - acceptedBefore > RATE * 4, `the ingress kept accepting while the database was down (${load.acceptedSoFar() - acceptedBefore} in 5 s)`)
  await server.start()
  t.comment(`PostgreSQL restart: down for ${Date.now() - stoppedAt} ms`)
  await sleep(5000)
  const report = await load.stop()
  await expectStoredOnce(t, stack, report, 'PostgreSQL restart')
  t.same(stack.pids(), parts, 'neither the worker nor the ingress exited')
  t.same(await stack.restarts(), { ingress: 0, worker: 0 }, 'and health shows no restart')
  const down = linesMatching(stack.output(), /database unreachable: holding work/)
  t.ok(down >= 1 && down <= 2, `the outage was logged once by each process that met it (${down})`)
  t.equal(linesMatching(stack.output(), /database reachable again/), down, 'and its end as often')
  t.equal(linesMatching(stack.output(), /grouper consumer error/), 0, 'no batch failed as an error')
  t.comment(`PostgreSQL restart: logged ${warningsIn(stack.output()).join('; ') || 'no warning'}`)
  t.equal(await stack.stop(), 0, 'Ctrl-C stops svc up cleanly afterwards')
})
