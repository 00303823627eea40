/**
 * The independent review: a second model conversation that sees only the diff and the evidence (not
 * the fix conversation) and answers approve or veto with a reason. It can veto; it cannot make a
 * failed check pass (delivery.ts checks the evidence first).
 */
import type { ModelPlugin, ModelTool } from '../../../shared/plugins/model-types.js'
import { converse, type Budgets } from '../agent-loop.js'
import { reviewMessage, reviewSystemPrompt } from './prompt.js'

const REVIEW_TOOL: ModelTool = Object.freeze({
  name: 'review_verdict',
  description: 'Your verdict on the fix: approve or not, with the reason.',
  inputSchema: { type: 'object', properties: { approve: { type: 'boolean' }, reason: { type: 'string' } }, required: ['approve', 'reason'], additionalProperties: false },
})

export interface Verdict {
  approve: boolean
  reason: string
}

export async function reviewFix(model: ModelPlugin, input: { summary: string; diff: string; evidence: string }, budgets: Budgets, record: { step(step: { kind: 'model' | 'tool'; inputTokens?: number; outputTokens?: number }): Promise<void> }, signal: AbortSignal): Promise<Verdict> {
  return converse<Verdict>(
    model,
    {
      what: 'review',
      system: reviewSystemPrompt(),
      firstMessage: reviewMessage(input),
      tools: { specs: [REVIEW_TOOL], run: async () => ({ content: 'only review_verdict is available', isError: true }) },
      finish: { name: REVIEW_TOOL.name, parse: parseVerdict },
      record,
    },
    { ...budgets, maxTurns: Math.min(budgets.maxTurns, 3) },
    signal,
  )
}

function parseVerdict(input: unknown): { ok: true; value: Verdict } | { ok: false; problems: string[] } {
  const raw = input as { approve?: unknown; reason?: unknown }
  if (typeof raw.approve !== 'boolean') return { ok: false, problems: ['approve must be true or false'] }
  return { ok: true, value: { approve: raw.approve, reason: typeof raw.reason === 'string' ? raw.reason.slice(0, 1000) : '' } }
}
