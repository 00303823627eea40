import t from 'tap'
import { HoldPolicy } from '../../../shared/streams/holds.js'

const outage = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })
const isOutage = (error: unknown): boolean => (error as { code?: string }).code === '57P01'

t.test('only an outage is held, and twenty holds in a row at most; a success starts the count again', async (t) => {
  const policy = new HoldPolicy(isOutage, undefined)
  t.notOk(policy.holds(new Error('duplicate key')), 'a failure of the entries is not held')
  let held = 0
  while (policy.holds(outage)) held++
  t.equal(held, 20, 'twenty holds, then the batch spends attempts')
  policy.succeeded()
  t.ok(policy.holds(outage), 'after a batch succeeds, the next outage is held again')
})

t.test('recovery waits for the dependency, and a stop ends the wait at once', async (t) => {
  let back!: () => void
  const policy = new HoldPolicy(isOutage, () => new Promise<void>((resolve) => (back = resolve)))
  policy.holds(outage)
  let recovered = false
  const waiting = policy.recovery(outage, new AbortController().signal).then(() => (recovered = true))
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.notOk(recovered, 'still waiting while the dependency is down')
  back()
  await waiting
  t.ok(recovered, 'resumes when it answers')

  const stopping = new AbortController()
  const started = Date.now()
  const held = policy.recovery(outage, stopping.signal)
  stopping.abort()
  await held
  t.ok(Date.now() - started < 1000, 'a consumer that stops does not wait for the outage to end')
})

t.test('holds that pile up while the dependency answers are spaced out: the pause grows', async (t) => {
  const policy = new HoldPolicy(isOutage, async () => {})
  // The pause's timer does not hold a process open (a worker has its connections for that); this test has none.
  const alive = setInterval(() => {}, 1000)
  t.teardown(() => clearInterval(alive))
  policy.holds(outage)
  let started = Date.now()
  await policy.recovery(outage, new AbortController().signal)
  const first = Date.now() - started
  policy.holds(outage)
  policy.holds(outage)
  started = Date.now()
  await policy.recovery(outage, new AbortController().signal)
  const third = Date.now() - started
  t.ok(first < 200, `the first hold resumes as soon as the probe answers (${first} ms)`)
  t.ok(third >= 900, `the third in a row waits a second first (${third} ms)`)
})
