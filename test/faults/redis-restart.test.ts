import t from 'tap'
import { sleep, startSteadyLoad } from './load.js'
import { startOwnRedis } from './servers.js'
import { linesMatching, supervisedStack, warningsIn } from './stack.js'
import { expectStoredOnce } from './verify.js'

// Bounded: a scenario that has not recovered by then has failed (the runner's default is 2 min a file).
t.setTimeout(5 * 60_000)

const RATE = 150

const CASES = [
  { how: 'kill -9', downMs: 3000 },
  { how: 'a clean stop', downMs: 3000 },
  { how: 'kill -9', downMs: 15_000 },
] as const

for (const { how, downMs } of CASES) {
  t.test(`Redis with AOF, stopped by ${how} under load and started again ${downMs / 1000} s later: no process exits, the outage is logged once per connection, and every accepted event is stored once`, async (t) => {
    const redis = await startOwnRedis(t)
    const stack = await supervisedStack(t, { redisUrl: redis.url })
    const parts = stack.pids()
    const load = startSteadyLoad(stack.base, stack.key, RATE)
    await sleep(4000)
    await (how === 'kill -9' ? redis.kill() : redis.stop())
    await sleep(downMs)
    await redis.start()
    await sleep(6000)
    const report = await load.stop()
    const label = `Redis ${how}, down ${downMs / 1000} s`
    await expectStoredOnce(t, stack, report, label)
    t.same(stack.pids(), parts, 'neither the worker nor the ingress exited')
    t.same(await stack.restarts(), { ingress: 0, worker: 0 }, 'and health shows no restart')
    const refusals = [...report.refused.keys()]
    t.same(refusals, ['status 503'], `while Redis was away the ingress answered 503 unavailable at once, and nothing else (${report.refused.get('status 503') ?? 0})`)
    const out = stack.output()
    const down = linesMatching(out, /redis unreachable: reconnecting/)
    t.ok(down >= 1 && down <= 4, `one line per connection when Redis went away (${down}: the ingress's two, the worker's)`)
    t.equal(linesMatching(out, /redis reachable again/), down, 'and one when each was back')
    const said = warningsIn(out)
    t.comment(`${label}: logged ${said.join('; ')}`)
    t.same(said.filter((line) => !/redis unreachable: reconnecting ×[12]$/.test(line)), [], 'nothing else was logged as a warning or an error (one line per connection; none per event, read or renewal)')
    t.equal(await stack.stop(), 0, 'Ctrl-C stops svc up cleanly afterwards')
  })
}
