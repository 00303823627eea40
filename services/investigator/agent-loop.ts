/**
 * A model conversation with tools (the investigation's, the fix's, the review's): the model reads
 * its task (untrusted text only as delimited data), calls tools, and ends with one finishing call.
 * Hard budgets of turns, tokens and wall time; a model that is unavailable is retried a little
 * within the run, then the run stops with a reason.
 */
import { ModelRejected, ModelUnavailable, type ModelMessage, type ModelPlugin, type ModelReply, type ModelRequest, type ModelTool } from '../../shared/plugins/types.js'
import { sleep, SECOND } from '../../shared/time.js'
import type { ToolResult } from './analysis/repo-tools.js'
import { countModelTurn, countToolCall } from './metrics.js'
import { Stop } from './stops.js'

export interface Budgets {
  maxTurns: number
  maxTokens: number
  /** Ms epoch by which the run must have answered. */
  deadline: number
}

/** What one conversation needs: its instructions, its tools, the tool that ends it, and where its turns are recorded. */
export interface Conversation<T> {
  /** Names the run in stop messages ("investigation", "fix"). */
  what: string
  system: string
  firstMessage: string
  tools: { readonly specs: readonly ModelTool[]; run(name: string, input: unknown): Promise<ToolResult> }
  /** The tool that ends the conversation, and the check of its input. */
  finish: { name: string; parse(input: unknown): { ok: true; value: T } | { ok: false; problems: string[] } }
  record: { step(step: { kind: 'model' | 'tool'; name?: string; detail?: string; inputTokens?: number; outputTokens?: number; durationMs?: number }): Promise<void> }
}

/** Output tokens one model turn may use. */
const TURN_OUTPUT_TOKENS = 4096
/** Malformed tool calls (or turns without any) tolerated before the run stops. */
const MALFORMED_LIMIT = 3
/** Tries per model turn when the provider is unavailable, with the pause before each retry. */
const MODEL_RETRIES = [2 * SECOND, 8 * SECOND]
/** A provider's Retry-After is honoured up to this. */
const MAX_RETRY_PAUSE = 30 * SECOND

/** Runs the conversation to its finishing call; throws Stop with the reason when it cannot get one. */
export async function converse<T>(model: ModelPlugin, talk: Conversation<T>, budgets: Budgets, signal: AbortSignal): Promise<T> {
  const messages: ModelMessage[] = [{ role: 'user', text: talk.firstMessage }]
  const { what } = talk
  let tokens = 0
  let malformed = 0
  for (let turn = 1; turn <= budgets.maxTurns; turn++) {
    if (Date.now() >= budgets.deadline) throw new Stop('budget_exhausted', `The ${what} used its wall-time budget after ${turn - 1} turns.`)
    if (tokens >= budgets.maxTokens) throw new Stop('budget_exhausted', `The ${what} used its token budget (${tokens} of ${budgets.maxTokens}) after ${turn - 1} turns.`)
    const started = Date.now()
    const reply = await ask(model, { system: talk.system, messages, tools: talk.tools.specs, maxTokens: TURN_OUTPUT_TOKENS }, budgets.deadline, signal)
    tokens += reply.usage.inputTokens + reply.usage.outputTokens
    await talk.record.step({ kind: 'model', name: reply.stop, detail: `${reply.toolCalls.length} tool calls`, inputTokens: reply.usage.inputTokens, outputTokens: reply.usage.outputTokens, durationMs: Date.now() - started })
    countModelTurn(what, model.label, reply.usage, Date.now() - started)
    messages.push({ role: 'assistant', text: reply.text, toolCalls: reply.toolCalls })
    if (reply.toolCalls.length === 0) {
      if (++malformed >= MALFORMED_LIMIT) throw new Stop('model_malformed_output', `The model answered ${malformed} times without calling a tool or ${talk.finish.name}.`)
      messages.push({ role: 'user', text: `Use the tools, and finish by calling ${talk.finish.name}.` })
      continue
    }
    const results: Array<{ callId: string; content: string; isError: boolean }> = []
    for (const call of reply.toolCalls) {
      if (call.input === undefined) {
        malformed++
        results.push({ callId: call.id, content: `Malformed call: ${call.malformed ?? 'arguments are not a JSON object'}. Call the tool again with a JSON object.`, isError: true })
        continue
      }
      if (call.name === talk.finish.name) {
        const parsed = talk.finish.parse(call.input)
        if (parsed.ok) return parsed.value
        malformed++
        results.push({ callId: call.id, content: `${talk.finish.name} was refused: ${parsed.problems.join('; ')}`, isError: true })
        continue
      }
      const toolStarted = Date.now()
      const result = await talk.tools.run(call.name, call.input)
      await talk.record.step({ kind: 'tool', name: call.name, detail: `${result.isError ? 'error' : 'ok'}, ${result.content.length} chars`, durationMs: Date.now() - toolStarted })
      countToolCall(what, talk.tools.specs, call.name, Date.now() - toolStarted)
      results.push({ callId: call.id, ...result })
    }
    if (malformed >= MALFORMED_LIMIT) throw new Stop('model_malformed_output', `The model sent ${malformed} malformed tool calls or answers.`)
    messages.push({ role: 'tool', results })
  }
  throw new Stop('budget_exhausted', `The ${what} used all ${budgets.maxTurns} turns without an answer.`)
}

/** One model turn, retried while the provider is unavailable and time allows; aborted at the deadline. */
async function ask(model: ModelPlugin, request: Omit<ModelRequest, 'signal'>, deadline: number, signal: AbortSignal): Promise<ModelReply> {
  for (let attempt = 0; ; attempt++) {
    const timeLeft = deadline - Date.now()
    if (timeLeft <= 0) throw new Stop('budget_exhausted', 'The investigation used its wall-time budget waiting for the model.')
    try {
      return await model.complete({ ...request, signal: AbortSignal.any([signal, AbortSignal.timeout(timeLeft)]) })
    } catch (error) {
      if (signal.aborted) throw error
      if (error instanceof ModelRejected) throw new Stop('model_rejected', `The model provider refused the request (${error.status}).`)
      if (!(error instanceof ModelUnavailable)) throw error
      if (Date.now() >= deadline) throw new Stop('budget_exhausted', 'The investigation used its wall-time budget waiting for the model.')
      const pause = MODEL_RETRIES[attempt]
      if (pause === undefined) throw new Stop('model_unavailable', `The model provider was unavailable (${error.cause_}) on ${attempt + 1} tries.`)
      await sleep(Math.min(MAX_RETRY_PAUSE, pause, Math.max(0, deadline - Date.now())), signal)
    }
  }
}
