import t from 'tap'
import { sleep, startSteadyLoad } from './load.js'
import { holdMidBatch, linesMatching, supervisedStack, warningsIn } from './stack.js'
import { expectStoredOnce } from './verify.js'

// Bounded: a scenario that has not recovered by then has failed (the runner's default is 2 min a file).
t.setTimeout(5 * 60_000)

/** Events a second: steady, well under what one worker drains on this machine. */
const RATE = 150

t.test('a worker killed with -9 mid-batch under load: svc up restarts it, the events it held are taken over and stored within 30 s, each once, and the ingress never stops', async (t) => {
  const stack = await supervisedStack(t)
  const { worker, ingress } = stack.pids() as { worker: number; ingress: number }
  const load = startSteadyLoad(stack.base, stack.key, RATE)
  await sleep(4000)

  const batch = await holdMidBatch(t, stack)
  process.kill(worker, 'SIGKILL')
  await batch.release()
  t.ok(batch.pending > 0, `killed mid-batch: it held ${batch.pending} unacknowledged entries`)

  await sleep(8000)
  const report = await load.stop()
  const stored = await expectStoredOnce(t, stack, report, 'worker kill -9')
  t.ok(stored.slowestMs <= 30_000, `the slowest event was stored within 30 s of its receipt (${stored.slowestMs} ms)`)
  t.same(await stack.restarts(), { ingress: 0, worker: 1 }, 'the worker was restarted once; the ingress never')
  t.not(stack.part('worker'), worker, 'by a new worker process')
  t.equal(stack.part('ingress'), ingress, 'the ingress is the process it was')
  t.ok(linesMatching(stack.output(), /took over entries another consumer stopped renewing/) >= 1, 'the replacement logged taking over the dead worker\'s entries')
  t.ok(linesMatching(stack.output(), /worker exited unexpectedly: restarting/) === 1, 'the supervisor logged the restart once')
  t.comment(`worker kill -9: logged ${warningsIn(stack.output()).join('; ') || 'no warning'}`)
  t.equal(await stack.stop(), 0, 'Ctrl-C stops svc up cleanly afterwards')
})

