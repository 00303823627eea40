import t from 'tap'
import { terminateBackends } from '../helpers/pg-faults.js'
import { sleep, startSteadyLoad } from './load.js'
import { holdMidBatch, linesMatching, supervisedStack, warningsIn } from './stack.js'
import { expectStoredOnce } from './verify.js'

// Bounded: a scenario that has not recovered by then has failed (the runner's default is 2 min a file).
t.setTimeout(5 * 60_000)

const RATE = 150

t.test('PostgreSQL ending every session of the stack three times under load (as a restart or failover does): nothing exits, the outage is logged once each way, and every accepted event is stored once', async (t) => {
  const stack = await supervisedStack(t)
  const parts = stack.pids()
  const load = startSteadyLoad(stack.base, stack.key, RATE)
  await sleep(3000)
  let terminated = 0
  for (let i = 0; i < 3; i++) {
    // Each termination lands while a batch's transaction holds its connection, the case that
    // used to end the worker with an unhandled 'error' event.
    const batch = await holdMidBatch(t, stack)
    t.ok(batch.pending > 0, `round ${i + 1}: the worker is mid-batch (${batch.pending} entries)`)
    terminated += await terminateBackends(stack.databaseUrl)
    await batch.release()
    await sleep(2000)
  }
  // And for 4 s, every session caught idle inside a transaction, between two statements: node-postgres
  // reports that end as an 'error' event on the client rather than as a failed query.
  const between = await terminateBackends(stack.databaseUrl, { idleInTransaction: true, forMs: 4000 })
  t.comment(`PostgreSQL backend termination: ${between} sessions ended between two statements of a transaction`)
  await sleep(2000)
  const report = await load.stop()
  t.ok(terminated >= 3, `sessions were terminated (${terminated})`)
  await expectStoredOnce(t, stack, report, 'PostgreSQL backend termination')
  t.same(stack.pids(), parts, 'neither the worker nor the ingress exited')
  t.same(await stack.restarts(), { ingress: 0, worker: 0 }, 'and health shows no restart')
  const out = stack.output()
  const down = linesMatching(out, /database unreachable: holding work/)
  t.ok(down >= 1 && down <= 2 * 3 + between, `at most one line per process per termination when an outage starts (${down})`)
  t.equal(linesMatching(out, /database reachable again/), down, 'and one when each ends')
  t.equal(linesMatching(out, /Unhandled 'error' event|terminating connection due to administrator command"?,"stack/), 0, 'no unhandled error, no stack trace per batch')
  t.equal(linesMatching(out, /grouper consumer error/), 0, 'no batch failed as an error: each was held and stored')
  t.comment(`PostgreSQL backend termination: logged ${warningsIn(stack.output()).join('; ') || 'no warning'}`)
  t.equal(await stack.stop(), 0, 'Ctrl-C stops svc up cleanly afterwards')
})
