/**
 * The neutral model conversation (shared/plugins/model-types.ts) in Anthropic's Messages format and
 * back. Requests are built from our own types; replies are checked field by field, since a proxy or
 * a half-compatible server may answer 200 with anything, and that must become bad_reply, not a
 * TypeError deep in the agent loop.
 */
import type Anthropic from '@anthropic-ai/sdk'
import { ModelUnavailable, type ModelMessage, type ModelReply, type ModelRequest, type ModelToolCall } from '../../shared/plugins/model-types.js'

type ContentBlock = Anthropic.ContentBlockParam

/** The Messages API body for request (non-streaming), for model. */
export function toAnthropicBody(request: ModelRequest, model: string): Anthropic.MessageCreateParamsNonStreaming {
  return {
    model,
    max_tokens: request.maxTokens,
    // The API refuses an empty system text block; no instructions means no system field.
    ...(request.system === '' ? {} : { system: request.system }),
    messages: toAnthropicMessages(request.messages),
    ...(request.tools.length === 0
      ? {}
      : { tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema as Anthropic.Tool.InputSchema })) }),
  }
}

function toAnthropicMessages(messages: readonly ModelMessage[]): Anthropic.MessageParam[] {
  const out: Array<{ role: 'user' | 'assistant'; content: ContentBlock[] }> = []
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user'
    const blocks = toBlocks(message)
    // Tool results travel in a user turn; a user text right after them joins that turn, since
    // Anthropic wants user and assistant turns to alternate.
    const last = out.at(-1)
    if (last !== undefined && last.role === role) last.content.push(...blocks)
    else out.push({ role, content: blocks })
  }
  return out
}

function toBlocks(message: ModelMessage): ContentBlock[] {
  switch (message.role) {
    case 'user':
      return [{ type: 'text', text: message.text }]
    case 'assistant': {
      // An empty text block is refused by the API, so a turn that only called tools has none.
      const text: ContentBlock[] = message.text === '' ? [] : [{ type: 'text', text: message.text }]
      const calls: ContentBlock[] = message.toolCalls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.input ?? {} }))
      const blocks = [...text, ...calls]
      return blocks.length > 0 ? blocks : [{ type: 'text', text: '(no answer)' }]
    }
    case 'tool':
      return message.results.map((result) => ({ type: 'tool_result', tool_use_id: result.callId, content: result.content, is_error: result.isError }))
  }
}

const STOP: Readonly<Record<string, ModelReply['stop']>> = { end_turn: 'end', stop_sequence: 'end', tool_use: 'tool_use', max_tokens: 'max_tokens' }

/** The neutral reply for a Messages API answer; throws ModelUnavailable bad_reply when it is not one. */
export function fromAnthropicReply(body: unknown, label: string): ModelReply {
  const bad = (what: string): never => {
    throw new ModelUnavailable(`${label} answered with a reply that is not an Anthropic message (${what}). Check the base URL points at the Messages API.`, 'bad_reply')
  }
  if (!isObject(body)) return bad(typeof body === 'string' ? 'a text body, not JSON' : 'not a JSON object')
  if (!Array.isArray(body.content)) return bad('no content list')
  const texts: string[] = []
  const toolCalls: ModelToolCall[] = []
  for (const block of body.content as unknown[]) {
    if (!isObject(block)) return bad('a content block that is not an object')
    if (block.type === 'text') {
      if (typeof block.text !== 'string') return bad('a text block without text')
      texts.push(block.text)
    } else if (block.type === 'tool_use') {
      if (typeof block.id !== 'string' || typeof block.name !== 'string') return bad('a tool_use block without id or name')
      toolCalls.push(toolCall(block.id, block.name, block.input))
    }
    // Other blocks (thinking, server tools' results) are the provider's business, not the loop's.
  }
  const reason = typeof body.stop_reason === 'string' ? body.stop_reason : undefined
  // pause_turn, refusal or a missing reason from a lenient server: judge by what came back.
  const stop = (reason !== undefined ? STOP[reason] : undefined) ?? (toolCalls.length > 0 ? 'tool_use' : 'end')
  const usage = isObject(body.usage) ? body.usage : {}
  return {
    text: texts.join(''),
    toolCalls,
    stop,
    usage: {
      // Cached prompt tokens are counted apart from input_tokens; the budget pays for all of them.
      inputTokens: count(usage.input_tokens) + count(usage.cache_creation_input_tokens) + count(usage.cache_read_input_tokens),
      outputTokens: count(usage.output_tokens),
    },
  }
}

function toolCall(id: string, name: string, input: unknown): ModelToolCall {
  if (isObject(input)) return { id, name, input }
  const got = input === undefined ? 'no input' : Array.isArray(input) ? 'an array' : `a ${input === null ? 'null' : typeof input}`
  return { id, name, input: undefined, malformed: `the tool input is ${got}, not a JSON object` }
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
