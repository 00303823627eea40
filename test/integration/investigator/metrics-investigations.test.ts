import t from 'tap'
import type { EntityManager } from '@mikro-orm/postgresql'
import { Investigation, InvestigationStep } from '../../../services/investigator/store/entities.js'
import { Fix, FixEvidence } from '../../../services/investigator/store/fix-entities.js'
import { serviceBrain } from '../../helpers/investigation/fixer-brain.js'
import { startHarness, type Harness } from '../../helpers/investigation/investigation-harness.js'
import { scrape, type Scrape } from '../../helpers/metrics.js'

// Real processes and several stacks in one file: past 80 s under CI load on 2 cores, near tap's
// 120 s default for a file, though each wait inside stays bounded.
t.setTimeout(5 * 60_000)

const MODEL = 'anthropic/claude-test'

/** The worker's /metrics (the harness runs ingress and worker in this process, one registry). */
function workerMetrics(h: Harness): Promise<Scrape> {
  return scrape(`http://127.0.0.1:${h.stack.worker!.healthPort}/metrics`)
}

function moved(before: Scrape, after: Scrape, name: string, labels: Record<string, string> = {}): number {
  return after.value(name, labels) - before.value(name, labels)
}

t.test('an investigated bug whose fix is proved in the sandbox and delivered moves the outcome, delivery, model, tool and sandbox metrics by what the records hold', async (t) => {
  const h = await startHarness(t, { sandbox: true, script: serviceBrain(), env: { INVESTIGATION_LEASE_SECONDS: '4' } })
  const before = await workerMetrics(h)
  const issue = await h.send('app', 2)
  const settled = await h.settle(issue, 120_000)
  t.same([settled.outcome, settled.status], ['investigated', 'pr_draft'])
  const after = await workerMetrics(h)
  const em = h.orm.em.fork() as EntityManager
  const run = await em.findOneOrFail(Investigation, { issueId: issue })
  const fix = await em.findOneOrFail(Fix, { issueId: issue })

  t.equal(moved(before, after, 'svc_investigations_finished_total', { outcome: 'investigated' }), 1, 'the outcome is counted')
  t.equal(moved(before, after, 'svc_investigations_finished_total'), 1, 'once')
  t.equal(moved(before, after, 'svc_fixes_delivered_total', { delivery: 'draft' }), 1, 'the delivery is counted')
  t.equal(moved(before, after, 'svc_fixes_stopped_total'), 0, 'and no stop')

  const tokens = (stage: string, direction: string) => moved(before, after, 'svc_model_tokens_total', { stage, direction, model: MODEL })
  t.equal(tokens('investigation', 'input'), run.inputTokens, "the investigation's input tokens, as its row has them")
  t.equal(tokens('investigation', 'output'), run.outputTokens, 'and its output tokens')
  t.ok(tokens('review', 'input') > 0 && tokens('fix', 'input') > 0, 'the fix and its review each used tokens')
  t.equal(tokens('fix', 'input') + tokens('review', 'input'), fix.inputTokens, "together, the fix row's input tokens")
  t.equal(tokens('fix', 'output') + tokens('review', 'output'), fix.outputTokens, 'and its output tokens')
  t.equal(moved(before, after, 'svc_model_turn_duration_seconds_count', { stage: 'investigation' }), run.turns, 'each model turn timed')

  const toolSteps = await em.find(InvestigationStep, { investigationId: run.id, kind: 'tool' })
  t.ok(toolSteps.length > 0)
  t.equal(moved(before, after, 'svc_agent_tool_duration_seconds_count', { stage: 'investigation' }), toolSteps.length, 'each tool call of the investigation timed')
  for (const name of new Set(toolSteps.map((step) => step.name))) {
    t.equal(moved(before, after, 'svc_agent_tool_duration_seconds_count', { stage: 'investigation', tool: name }), toolSteps.filter((s) => s.name === name).length, `under its tool (${name})`)
  }
  t.ok(moved(before, after, 'svc_agent_tool_duration_seconds_count', { stage: 'fix', tool: 'run_command' }) >= 1, "the fix's sandbox commands the model ran are timed")

  const evidence = await em.find(FixEvidence, { fixId: fix.id })
  t.equal(evidence.length, 7)
  for (const row of evidence) {
    t.equal(moved(before, after, 'svc_sandbox_command_duration_seconds_count', { tier: row.tier, phase: row.phase }), 1, `the ${row.tier} ${row.phase} command timed`)
    t.ok(moved(before, after, 'svc_sandbox_command_duration_seconds_sum', { tier: row.tier, phase: row.phase }) > 0, `for its ${row.durationMs} ms`)
  }
  t.equal(moved(before, after, 'svc_sandbox_commands_total', { tier: 'E2', result: 'exit_nonzero' }), 1, 'the regression test failing on the baseline')
  t.equal(moved(before, after, 'svc_sandbox_commands_total', { result: 'exit_zero' }), 6, 'every other command exiting 0')

  t.equal(moved(before, after, 'svc_stream_batch_duration_seconds_count', { group: 'investigator', result: 'ok' }), 1, 'the run is one investigator batch')
  t.equal(moved(before, after, 'svc_stream_batch_duration_seconds_count', { group: 'fixer', result: 'ok' }), 1, 'the fix one fixer batch')
  t.equal(after.value('svc_investigation_slots_max'), h.stack.config.investigations.maxConcurrent, 'the fleet cap')
  t.equal(after.value('svc_investigation_slots_running'), 0, 'and no slot held once both ended')
  t.same(await h.violations(), [])
})

t.test('stops are counted by their reason: a fix without a sandbox template, an investigation without a repository', async (t) => {
  const h = await startHarness(t)
  const before = await workerMetrics(h)
  const app = await h.settle(await h.send('app', 2))
  t.same([app.outcome, app.status, app.reason_code], ['investigated', 'needs_human', 'sandbox_template_missing'])
  await h.stack.db.query("UPDATE projects SET codehost_repo = '' WHERE id = $1", [h.stack.projectId])
  const thirdParty = await h.settle(await h.send('third_party', 2))
  t.same([thirdParty.outcome, thirdParty.reason_code], ['needs_human', 'codehost_not_connected'])
  const after = await workerMetrics(h)
  t.equal(moved(before, after, 'svc_fixes_stopped_total', { reason: 'sandbox_template_missing' }), 1, 'the fix stop, by its reason')
  t.equal(moved(before, after, 'svc_fixes_stopped_total'), 1, 'alone')
  t.equal(moved(before, after, 'svc_investigations_stopped_total', { reason: 'codehost_not_connected' }), 1, 'the investigation stop, by its reason')
  t.equal(moved(before, after, 'svc_investigations_stopped_total'), 1, 'alone')
  t.equal(moved(before, after, 'svc_investigations_finished_total', { outcome: 'needs_human' }), 1)
  t.equal(moved(before, after, 'svc_investigations_finished_total', { outcome: 'investigated' }), 1)
  t.equal(moved(before, after, 'svc_fixes_delivered_total'), 0)
  t.same(await h.violations(), [])
})
