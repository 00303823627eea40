import t from 'tap'
import { serviceBrain } from '../helpers/investigation/fixer-brain.js'
import { FIXTURE_TEMPLATE, REPO, startHarness, workerEnv } from '../helpers/investigation/investigation-harness.js'
import type { Script } from '../helpers/loopback/model-server.js'
import { waitFor } from '../helpers/stack.js'
import { workerFleet } from '../helpers/svc-workers.js'

t.setTimeout(150_000)

/** Short leases, so a dead worker's fix is noticed in seconds: the sweeper looks every second. */
const LEASES = { INVESTIGATION_LEASE_SECONDS: '2', SVC_STREAM_LEASE_MS: '1000' }

interface FixRow {
  id: string
  state: string
  attempts: number
  pr_number: number | null
}

t.test('a worker killed with -9 while fixing: another worker takes the fix over and delivers one pull request, once', async (t) => {
  const began = Date.now()
  const clock = () => `${((Date.now() - began) / 1000).toFixed(1)} s`
  const brain = serviceBrain()
  let fixTurns = 0
  // The fix conversation's first turn hangs (worker A is killed waiting on it); everything else is the honest model.
  const script: Script = (turn, index) => (turn.tools.includes('submit_fix') && fixTurns++ === 0 ? { hang: true } : brain(turn, index))
  const h = await startHarness(t, { script, env: { SVC_SERVICES: 'grouper', ...LEASES } })
  const fleet = workerFleet(t, {
    ...workerEnv(h),
    SVC_SANDBOX_JAVASCRIPT_TEMPLATE: FIXTURE_TEMPLATE,
    ...LEASES,
    LOG_LEVEL: 'warn',
  })
  const a = await fleet.start({})
  const issue = await h.send('app', 2)
  const fixOf = async () => (await h.stack.db.query<FixRow>('SELECT id, state, attempts, pr_number FROM fixes WHERE issue_id = $1', [issue])).rows
  const taken = await waitFor(async () => {
    const [fix] = await fixOf()
    return fix?.state === 'fixing' && fixTurns > 0 ? fix : undefined
  }, 60_000, 50)
  t.equal(taken.attempts, 1, `worker A is fixing, waiting on the model (${clock()})`)
  const { survivors } = await a.kill()
  t.equal(await a.exited, 'SIGKILL', `worker A was killed with -9 at ${clock()}`)
  t.same(survivors, [], 'nothing it started outlives it (sandboxed commands included)')

  const b = await fleet.start({})
  const settled = await h.settle(issue, 90_000)
  t.comment(`issue ${settled.status} at ${clock()}`)
  t.equal(settled.status, 'pr_draft', 'worker B delivered the fix as a draft')
  const fixes = await fixOf()
  t.equal(fixes.length, 1, 'one fix for the issue')
  t.equal(fixes[0]!.attempts, 2, "two attempts: worker A's, cut short, and worker B's")
  t.equal(h.github.pulls(REPO).length, 1, 'exactly one pull request')
  t.equal(await b.stop(), 0, 'worker B stops cleanly on SIGTERM')
  t.same(fleet.leftovers(), [], 'no worker process is left running')
  t.same(await h.violations(), [], 'the invariants hold')
})
