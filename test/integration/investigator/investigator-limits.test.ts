import t from 'tap'
import type { EntityManager } from '@mikro-orm/postgresql'
import { Investigation } from '../../../services/investigator/store/entities.js'
import { gatedBrain, investigatorBrain } from '../../helpers/investigation/investigator-brain.js'
import { startHarness } from '../../helpers/investigation/investigation-harness.js'
import type { Script } from '../../helpers/loopback/model-server.js'
import { waitFor } from '../../helpers/stack.js'

const FINISHED = ['investigated', 'insight', 'needs_human']

async function health(port: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}/health`)).text()
}

t.test('INVESTIGATION_MAX_CONCURRENT=0 pauses investigations: a qualifying issue waits queued, and health says why', async (t) => {
  const h = await startHarness(t, { env: { INVESTIGATION_MAX_CONCURRENT: '0' } })
  const issue = await h.send('app', 2)
  t.equal((await h.waitForStatus(issue, ['queued'])).status, 'queued', 'admitted')
  await new Promise((resolve) => setTimeout(resolve, 2500))
  t.equal((await h.waitForStatus(issue, FINISHED.concat('queued', 'analyzing'))).status, 'queued', 'and left waiting, not started')
  t.equal(h.models.turns.length, 0, 'the model was never asked')
  t.match(await health(h.stack.worker!.healthPort), /investigations: running=0 max_concurrent=0 \(paused: INVESTIGATION_MAX_CONCURRENT=0\)/)
  const run = await (h.orm.em.fork() as EntityManager).findOneOrFail(Investigation, { issueId: issue })
  t.ok(run.leaseUntil.getTime() > Date.now(), "the waiting run's lease is kept alive, so the sweeper leaves it alone")
  t.same(await h.violations(), [])
})

t.test('INVESTIGATION_MAX_CONCURRENT=1 holds two workers to one investigation at a time across the fleet', async (t) => {
  const { script: gated, open } = gatedBrain()
  const h = await startHarness(t, { script: gated, env: { INVESTIGATION_MAX_CONCURRENT: '1' } })
  const second = await h.stack.startWorker()
  const app = await h.send('app', 2)
  const thirdParty = await h.send('third_party', 2)
  await waitFor(async () => h.models.turns.length > 0 || undefined, 20_000, 50)
  // Both workers have a run in hand; only one may be past the semaphore.
  await new Promise((resolve) => setTimeout(resolve, 2000))
  const { rows } = await h.stack.db.query<{ status: string }>('SELECT status FROM issues WHERE id = ANY($1) ORDER BY status', [[app, thirdParty]])
  t.same(rows.map((row) => row.status), ['analyzing', 'queued'], 'one analyzing, the other waiting queued')
  t.equal(new Set(h.models.turns.map((turn) => JSON.stringify(turn.messages[0]))).size, 1, 'the model heard of one investigation only')
  for (const port of [h.stack.worker!.healthPort, second.healthPort]) t.match(await health(port), /investigations: running=1 max_concurrent=1 /, 'each worker shows the fleet-wide count')
  open()
  t.equal((await h.settle(app)).outcome, 'investigated')
  t.equal((await h.settle(thirdParty)).status, 'insight', 'the waiting one runs once the slot is free')
  t.same(await h.violations(), [])
})

t.test("a project's daily token budget stops the next investigation at once, and health shows what was used", async (t) => {
  // The answer turn is expensive: the first run ends within budget (the check precedes each turn) and spends it.
  const brain = investigatorBrain()
  const costly: Script = (turn, index) => {
    const step = brain(turn, index)
    const answers = step.toolCalls?.some((call) => call.name === 'submit_answer')
    return { ...step, usage: answers ? { input: 5000, output: 0 } : { input: 1, output: 1 } }
  }
  const h = await startHarness(t, { script: costly, env: { INVESTIGATION_PROJECT_DAILY_TOKENS: '1000' } })
  const app = await h.send('app', 2)
  t.equal((await h.settle(app)).outcome, 'investigated')
  const turnsBefore = h.models.turns.length
  const thirdParty = await h.send('third_party', 2)
  const stopped = await h.settle(thirdParty)
  t.equal(stopped.reason_code, 'budget_exhausted')
  t.match(stopped.reason_message, /used \d+ of 1000 model tokens today/)
  t.equal(h.models.turns.length, turnsBefore, 'no model call was made for it')
  const run = await (h.orm.em.fork() as EntityManager).findOneOrFail(Investigation, { issueId: app })
  const used = run.inputTokens + run.outputTokens
  t.ok(used > 5000, 'the first run recorded what it used')
  t.match(await health(h.stack.worker!.healthPort), `investigation_budget ${h.stack.projectId}: used=${used} daily_tokens=1000`)
  t.same(await h.violations(), [])
})
