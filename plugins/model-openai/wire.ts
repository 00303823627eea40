/**
 * The neutral model conversation (shared/plugins/model-types.ts) in OpenAI's Chat Completions
 * format and back. Requests are built from our own types; replies are checked field by field,
 * since an OpenAI-compatible server may answer 200 with anything, and that must become bad_reply,
 * not a TypeError deep in the agent loop.
 */
import type OpenAI from 'openai'
import { ModelUnavailable, type ModelMessage, type ModelReply, type ModelRequest, type ModelToolCall } from '../../shared/plugins/model-types.js'

/**
 * Chat Completions has no error flag on a tool result, so a failed tool's content carries this
 * prefix: the model reads it as the failure it is, and a harness can decode it back to isError.
 */
export const TOOL_ERROR_PREFIX = '[error] '

/**
 * The Chat Completions body for request (non-streaming), for model. OpenAI's own API takes the
 * output limit as max_completion_tokens (its reasoning models refuse max_tokens); compatible
 * servers (Ollama, llama.cpp, vLLM) have long known only max_tokens.
 */
export function toOpenAiBody(request: ModelRequest, model: string, officialApi: boolean): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = request.system === '' ? [] : [{ role: 'system', content: request.system }]
  for (const message of request.messages) messages.push(...toOpenAiMessages(message))
  return {
    model,
    messages,
    ...(officialApi ? { max_completion_tokens: request.maxTokens } : { max_tokens: request.maxTokens }),
    ...(request.tools.length === 0
      ? {}
      : { tools: request.tools.map((tool) => ({ type: 'function' as const, function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } })) }),
  }
}

function toOpenAiMessages(message: ModelMessage): OpenAI.Chat.ChatCompletionMessageParam[] {
  switch (message.role) {
    case 'user':
      return [{ role: 'user', content: message.text }]
    case 'assistant':
      return [
        {
          role: 'assistant',
          // null, not '', when the turn only called tools: that is how the API itself answers it.
          content: message.text === '' && message.toolCalls.length > 0 ? null : message.text,
          ...(message.toolCalls.length === 0
            ? {}
            : { tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) } })) }),
        },
      ]
    case 'tool':
      return message.results.map((result) => ({ role: 'tool' as const, tool_call_id: result.callId, content: result.isError ? TOOL_ERROR_PREFIX + result.content : result.content }))
  }
}

const STOP: Readonly<Record<string, ModelReply['stop']>> = { stop: 'end', content_filter: 'end', tool_calls: 'tool_use', function_call: 'tool_use', length: 'max_tokens' }

/** The neutral reply for a Chat Completions answer; throws ModelUnavailable bad_reply when it is not one. */
export function fromOpenAiReply(body: unknown, label: string): ModelReply {
  const bad = (what: string): never => {
    throw new ModelUnavailable(`${label} answered with a reply that is not a chat completion (${what}). Check the base URL points at a Chat Completions API.`, 'bad_reply')
  }
  if (!isObject(body)) return bad(typeof body === 'string' ? 'a text body, not JSON' : 'not a JSON object')
  const choice = Array.isArray(body.choices) ? (body.choices[0] as unknown) : undefined
  if (!isObject(choice)) return bad('no choices')
  const message = choice.message
  if (!isObject(message)) return bad('a choice without a message')
  if (message.content !== undefined && message.content !== null && typeof message.content !== 'string') return bad('content that is not text')
  const toolCalls: ModelToolCall[] = []
  if (message.tool_calls !== undefined && message.tool_calls !== null) {
    if (!Array.isArray(message.tool_calls)) return bad('tool_calls that is not a list')
    for (const call of message.tool_calls as unknown[]) {
      if (!isObject(call) || !isObject(call.function)) return bad('a tool call without a function')
      if (typeof call.id !== 'string' || typeof call.function.name !== 'string') return bad('a tool call without id or name')
      toolCalls.push(toolCall(call.id, call.function.name, call.function.arguments))
    }
  }
  const reason = typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined
  // A missing or unknown reason from a lenient server: judge by what came back.
  const stop = (reason !== undefined ? STOP[reason] : undefined) ?? (toolCalls.length > 0 ? 'tool_use' : 'end')
  const usage = isObject(body.usage) ? body.usage : {}
  return {
    text: typeof message.content === 'string' ? message.content : '',
    toolCalls,
    stop,
    usage: { inputTokens: count(usage.prompt_tokens), outputTokens: count(usage.completion_tokens) },
  }
}

function toolCall(id: string, name: string, raw: unknown): ModelToolCall {
  // The API sends arguments as JSON text; some compatible servers send the object itself.
  if (isObject(raw)) return { id, name, input: raw }
  if (typeof raw !== 'string') return { id, name, input: undefined, malformed: 'the arguments are missing' }
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    return { id, name, input: undefined, malformed: 'the arguments are not valid JSON' }
  }
  if (isObject(parsed)) return { id, name, input: parsed }
  const got = Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : `a ${typeof parsed}`
  return { id, name, input: undefined, malformed: `the arguments are ${got}, not a JSON object` }
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
