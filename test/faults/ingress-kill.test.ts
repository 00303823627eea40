import t from 'tap'
import { waitFor } from '../helpers/stack.js'
import { sleep, startSteadyLoad } from './load.js'
import { linesMatching, supervisedStack, warningsIn } from './stack.js'
import { expectStoredOnce } from './verify.js'

// Bounded: a scenario that has not recovered by then has failed (the runner's default is 2 min a file).
t.setTimeout(5 * 60_000)

const RATE = 150

t.test('an ingress killed with -9 under load: svc up restarts it within seconds, the worker keeps draining, and every event it accepted is stored once', async (t) => {
  const stack = await supervisedStack(t)
  const { worker, ingress } = stack.pids() as { worker: number; ingress: number }
  const load = startSteadyLoad(stack.base, stack.key, RATE)
  await sleep(4000)
  process.kill(ingress, 'SIGKILL')
  const killedAt = Date.now()
  // Accepting again once the restarted ingress listens; how long that took is the outage a client saw.
  await waitFor(async () => ![undefined, ingress].includes(stack.part('ingress')), 30_000, 50)
  const before = load.acceptedSoFar()
  await waitFor(async () => load.acceptedSoFar() > before, 30_000, 20)
  const deadFor = Date.now() - killedAt
  await sleep(6000)
  const report = await load.stop()
  t.comment(`ingress kill -9: accepting again ${deadFor} ms after the kill`)
  await expectStoredOnce(t, stack, report, 'ingress kill -9')
  t.ok([...report.refused.keys()].every((reason) => /^(ECONNREFUSED|ECONNRESET|EPIPE)$/.test(reason)), `while it was down, connections were refused or reset, never answered wrongly (${[...report.refused.keys()].join(', ') || 'none'})`)
  t.same(await stack.restarts(), { ingress: 1, worker: 0 }, 'the ingress was restarted once; the worker never')
  t.equal(stack.part('worker'), worker, 'the worker is the process it was')
  t.equal(linesMatching(stack.output(), /ingress exited unexpectedly: restarting/), 1, 'the supervisor logged the restart')
  t.comment(`ingress kill -9: logged ${warningsIn(stack.output()).join('; ') || 'no warning'}`)
  t.equal(await stack.stop(), 0, 'Ctrl-C stops svc up cleanly afterwards')
})
