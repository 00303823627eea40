import t from 'tap'
import { refuseConnections } from '../helpers/pg-faults.js'
import { textOf } from '../helpers/processes.js'
import { sleep, startSteadyLoad } from './load.js'
import { linesMatching, supervisedStack, warningsIn } from './stack.js'
import { expectStoredOnce } from './verify.js'

// Bounded: a scenario that has not recovered by then has failed (the runner's default is 2 min a file).
t.setTimeout(5 * 60_000)

const RATE = 150

t.test('PostgreSQL refusing connections for 10 s under load (ALLOW_CONNECTIONS false, SQLSTATE 55000): the ingress keeps accepting, the worker waits without spending attempts and resumes within seconds, and every accepted event is stored once', async (t) => {
  const stack = await supervisedStack(t)
  t.teardown(() => refuseConnections(stack.databaseUrl, false))
  const load = startSteadyLoad(stack.base, stack.key, RATE)
  await sleep(3000)
  await refuseConnections(stack.databaseUrl, true)
  const refusedAt = Date.now()
  const acceptedBefore = load.acceptedSoFar()
  await sleep(5000)
  const health = await textOf(stack.health)
  await sleep(5000)
  t.ok(load.acceptedSoFar() - acceptedBefore > RATE * 8, `the ingress kept accepting while the database refused (${load.acceptedSoFar() - acceptedBefore} in 10 s)`)
  await refuseConnections(stack.databaseUrl, false)
  const reopenedAt = Date.now()
  await sleep(4000)
  const report = await load.stop()
  const stored = await expectStoredOnce(t, stack, report, 'PostgreSQL refusing connections for 10 s')
  const { rows } = await stack.db.query<{ last: Date }>("SELECT max(stored_at) AS last FROM events WHERE received_at < to_timestamp($1 / 1000.0)", [reopenedAt])
  const caughtUp = rows[0]!.last.getTime() - reopenedAt
  t.comment(`PostgreSQL refusing connections for 10 s: everything received during the refusal was stored ${caughtUp} ms after the database opened again (slowest event ${stored.slowestMs} ms from receipt, refusal ${reopenedAt - refusedAt} ms)`)
  // A batch that spent an attempt would wait out the first retry backoff (30 s).
  t.ok(caughtUp < 15_000, `held batches resumed on the next probe, not after a retry backoff (${caughtUp} ms)`)
  t.match(health, /^status: waiting$/m, 'worker health said it was waiting')
  t.match(health, /waiting_for=database/, 'and for what')
  const worker = (pattern: RegExp): number => linesMatching(stack.output(), new RegExp(`${pattern.source}.*"component":"worker"`))
  t.equal(worker(/database unreachable: holding work/), 1, 'the worker logged the outage once when it began')
  t.equal(worker(/database reachable again/), 1, 'and once when it ended')
  t.equal(linesMatching(stack.output(), /grouper consumer error/), 0, 'no batch failed as an error')
  t.same(await stack.restarts(), { ingress: 0, worker: 0 }, 'nothing was restarted')
  t.comment(`PostgreSQL refusing connections for 10 s: logged ${warningsIn(stack.output()).join('; ') || 'no warning'}`)
  t.equal(await stack.stop(), 0, 'Ctrl-C stops svc up cleanly afterwards')
})
