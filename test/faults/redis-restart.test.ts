import t from 'tap'
import { sleep, startSteadyLoad } from './load.js'
import { startOwnRedis } from './servers.js'
import { supervisedStack } from './stack.js'
import { expectStoredOnce } from './verify.js'

const RATE = 150

for (const how of ['kill -9', 'a clean restart'] as const) {
  t.test(`Redis with AOF, stopped by ${how} under load and started again 3 s later: no process exits, and every accepted event is stored once`, async (t) => {
    const redis = await startOwnRedis(t)
    const stack = await supervisedStack(t, { redisUrl: redis.url })
    const parts = { worker: stack.part('worker'), ingress: stack.part('ingress') }
    const load = startSteadyLoad(stack.base, stack.key, RATE)
    await sleep(4000)
    await (how === 'kill -9' ? redis.kill() : redis.stop())
    await sleep(3000)
    await redis.start()
    await sleep(6000)
    const report = await load.stop()
    await expectStoredOnce(t, stack, report, `Redis ${how}`)
    t.same({ worker: stack.part('worker'), ingress: stack.part('ingress') }, parts, 'neither the worker nor the ingress exited')
    t.same(await stack.restarts(), { ingress: 0, worker: 0 }, 'and health shows no restart')
    t.ok([...report.refused.keys()].every((reason) => /^status 503$|no answer/.test(reason)), `while Redis was down the ingress answered 503 or held the request (${[...report.refused.keys()].join(', ') || 'none refused'})`)
    t.equal(await stack.stop(), 0, 'Ctrl-C stops svc up cleanly afterwards')
  })
}
