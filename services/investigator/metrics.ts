/**
 * The investigator's metrics (docs/metrics.md), declared in one place: how investigations and fixes
 * end, what the model conversations spend, how long tools and sandbox commands take, and the
 * fleet's slots. The code that records each fact (a record's finish, the conversation's turn, a
 * fix's evidence) calls one function here; the stream runtime already times each run as a batch.
 */
import { Counter, Gauge, Histogram, readWithin } from '../../shared/metrics.js'
import type { CommandResult } from '../../shared/plugins/sandbox-types.js'
import type { ModelTool, ModelUsage } from '../../shared/plugins/types.js'
import { SECOND } from '../../shared/time.js'
import { OUTCOME_KINDS } from './store/entities.js'
import type { Delivery } from './store/fix-entities.js'

const finished = new Counter({ name: 'svc_investigations_finished_total', help: 'Investigations that ended, by outcome (investigated, insight, needs_human).', labelNames: ['outcome'] })
const stops = new Counter({ name: 'svc_investigations_stopped_total', help: 'Investigations that ended in needs_human, by reason code (docs/errors.md).', labelNames: ['reason'] })
const deliveries = new Counter({ name: 'svc_fixes_delivered_total', help: 'Fixes delivered as a pull request, by delivery (ready, draft, limited_draft).', labelNames: ['delivery'] })
const fixStops = new Counter({ name: 'svc_fixes_stopped_total', help: 'Fixes that ended in needs_human, by reason code (docs/errors.md).', labelNames: ['reason'] })
const tokens = new Counter({
  name: 'svc_model_tokens_total',
  help: 'Model tokens used, by direction (input, output), stage (investigation, fix, review) and model (the plugin and model name).',
  labelNames: ['direction', 'stage', 'model'],
})
const turns = new Histogram({
  name: 'svc_model_turn_duration_seconds',
  help: 'Time one model turn took, retries of an unavailable provider included, by stage and model.',
  labelNames: ['stage', 'model'],
  buckets: [0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120],
})
const tools = new Histogram({
  name: 'svc_agent_tool_duration_seconds',
  help: "Time one tool call of a model conversation took (a fix's run_command is a sandbox command), by stage and tool.",
  labelNames: ['stage', 'tool'],
  buckets: [0.005, 0.025, 0.1, 0.5, 1, 5, 10, 30, 60, 120],
})
const sandboxSeconds = new Histogram({
  name: 'svc_sandbox_command_duration_seconds',
  help: "Time one of a fix's evidence commands took in its sandbox, by tier (setup: the install; E0 build, E1 suite, E2 regression test) and phase (baseline, fix).",
  labelNames: ['tier', 'phase'],
  buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
})
const sandboxCommands = new Counter({
  name: 'svc_sandbox_commands_total',
  help: "A fix's evidence commands, by tier and how they ended (exit_zero, exit_nonzero, timed_out, output_capped, infra_error).",
  labelNames: ['tier', 'result'],
})

// Every value a counter's label can take starts at 0, so that the first stop of a kind shows in increase().
for (const outcome of OUTCOME_KINDS) finished.inc({ outcome }, 0)
for (const delivery of ['ready', 'draft', 'limited_draft'] satisfies Delivery[]) deliveries.inc({ delivery }, 0)

/** The slots a scrape reads: any worker's view of the fleet-wide semaphore (they share one Redis key). */
const slotSources = new Set<{ max: number; running(): Promise<number> }>()
const SLOTS_READ_MS = 2 * SECOND
new Gauge({
  name: 'svc_investigation_slots_running',
  help: 'Investigations and fixes running across the fleet now (holders of a slot), read from Redis when scraped.',
  async collect() {
    this.reset()
    const [source] = slotSources
    const running = source && (await readWithin(() => source.running(), SLOTS_READ_MS))
    if (running !== undefined) this.set(running)
  },
})
new Gauge({
  name: 'svc_investigation_slots_max',
  help: 'Investigations and fixes allowed to run at once across the fleet (INVESTIGATION_MAX_CONCURRENT; 0 pauses them).',
  collect() {
    this.reset()
    const [source] = slotSources
    if (source) this.set(source.max)
  },
})

/** Starts both stop counters at 0 for every reason (stops.ts; passed in, since stops.ts reaches this module through the records). */
export function countStopsFrom(reasons: readonly string[]): void {
  for (const reason of reasons) {
    stops.inc({ reason }, 0)
    fixStops.inc({ reason }, 0)
  }
}

/** Counts an investigation's one outcome, once it is committed. */
export function countInvestigationOutcome(outcome: { kind: string; reasonCode?: string }): void {
  finished.inc({ outcome: outcome.kind })
  if (outcome.kind === 'needs_human') stops.inc({ reason: outcome.reasonCode || 'unknown' })
}

/** Counts how a fix ended, once it is committed. */
export function countFixEnd(end: { kind: 'delivered'; delivery: string } | { kind: 'stopped'; reasonCode: string }): void {
  if (end.kind === 'delivered') deliveries.inc({ delivery: end.delivery })
  else fixStops.inc({ reason: end.reasonCode || 'unknown' })
}

/** Counts one model turn of a conversation (stage: investigation, fix, review). */
export function countModelTurn(stage: string, model: string, usage: ModelUsage, durationMs: number): void {
  tokens.inc({ direction: 'input', stage, model }, usage.inputTokens)
  tokens.inc({ direction: 'output', stage, model }, usage.outputTokens)
  turns.observe({ stage, model }, durationMs / SECOND)
}

/** Times one tool call; a name the model made up (no such tool) counts as unknown, so labels stay few. */
export function countToolCall(stage: string, specs: readonly ModelTool[], tool: string, durationMs: number): void {
  tools.observe({ stage, tool: specs.some((spec) => spec.name === tool) ? tool : 'unknown' }, durationMs / SECOND)
}

/** Times one evidence command and counts how it ended. */
export function countSandboxCommand(check: { tier: string; phase: string; result: CommandResult }): void {
  const { result } = check
  sandboxSeconds.observe({ tier: check.tier, phase: check.phase }, result.durationMs / SECOND)
  const ended = result.infraError ? 'infra_error' : result.timedOut ? 'timed_out' : result.outputCapped ? 'output_capped' : result.exitCode === 0 ? 'exit_zero' : 'exit_nonzero'
  sandboxCommands.inc({ tier: check.tier, result: ended })
}

/** Reports the fleet's slots from now on; answers how to stop (a stopped investigator's connection may be closed). */
export function watchSlots(slots: { max: number; running(): Promise<number> }): () => void {
  slotSources.add(slots)
  return () => void slotSources.delete(slots)
}
