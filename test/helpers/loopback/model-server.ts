/**
 * A scripted model provider on 127.0.0.1 that speaks both wire formats the model plugins use:
 * Anthropic's Messages API (POST /v1/messages) and OpenAI's Chat Completions (POST
 * /v1/chat/completions). Each request is decoded into the neutral conversation (ModelTurn), so a
 * test scripts "the model" against what the investigator said, whatever the provider; the answer
 * is encoded back in that provider's format. The real SDKs talk HTTP to it; nothing is mocked.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ModelScriptStep } from '../../../plugins/conformance/model.js'
import type { ModelMessage, ModelToolCall } from '../../../shared/plugins/model-types.js'

/** One request the server received, decoded from the wire into the neutral form. */
export interface ModelTurn {
  provider: 'anthropic' | 'openai'
  system: string
  messages: ModelMessage[]
  /** Names of the tools offered. */
  tools: string[]
  model: string
  /** The request body exactly as received. */
  rawBody: string
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string | undefined>
}

/** How the server answers one turn (the conformance suite's ModelScriptStep). */
export type ScriptStep = ModelScriptStep

/** Decides the answer to a turn; index counts this server's turns from 0. */
export type Script = (turn: ModelTurn, index: number) => ScriptStep | Promise<ScriptStep>

/** A running server and its controls. */
export interface ModelServer {
  /** The origin (http://127.0.0.1:<port>): the Anthropic SDK appends /v1/messages. */
  anthropicBaseUrl: string
  /** The origin plus /v1: the OpenAI SDK appends /chat/completions. */
  openaiBaseUrl: string
  /** Every request received, in order, including ones answered with an error. */
  readonly turns: ModelTurn[]
  /** Replaces the script for the turns to come. */
  script(fn: Script): void
  /** Stops listening and drops open connections, hanging answers included. */
  close(): Promise<void>
}

/** Marks a failed tool's content in Chat Completions, which has no error flag (as model-openai sends it). */
const OPENAI_TOOL_ERROR_PREFIX = '[error] '

/** Starts a server on a free port; without a script every turn is answered "ok". */
export async function startModelServer(script: Script = () => ({ text: 'ok' })): Promise<ModelServer> {
  let current = script
  const turns: ModelTurn[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => void answer(req, res, Buffer.concat(chunks).toString('utf8')))
  })
  const answer = async (req: IncomingMessage, res: ServerResponse, rawBody: string): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    const provider = path === '/v1/messages' ? 'anthropic' : path === '/v1/chat/completions' ? 'openai' : undefined
    if (provider === undefined || req.method !== 'POST') return sendError(res, provider ?? 'openai', { status: 404 }, '')
    const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]))
    let body: Record<string, unknown>
    try {
      body = JSON.parse(rawBody) as Record<string, unknown>
    } catch {
      return sendError(res, provider, { status: 400, body: errorBody(provider, 400, 'the body is not JSON') }, '')
    }
    const decoded = provider === 'anthropic' ? decodeAnthropic(body) : decodeOpenAi(body)
    const turn: ModelTurn = { provider, ...decoded, model: String(body.model), rawBody, headers }
    const index = turns.push(turn) - 1
    // As the real APIs do: no key, no answer, whatever the script says. Anthropic takes x-api-key
    // or a bearer token (the SDK sends its key as the latter since 1.x).
    const key = (provider === 'anthropic' ? headers['x-api-key'] : undefined) ?? headers.authorization?.replace(/^Bearer /, '')
    if (!key) return sendError(res, provider, { status: 401 }, '')
    let step: ScriptStep
    try {
      step = await current(turn, index)
    } catch (error) {
      return sendError(res, provider, { status: 500, body: errorBody(provider, 500, `the test's script threw: ${(error as Error).message}`) }, key)
    }
    if ('hang' in step) return
    if ('garbage' in step) return send(res, 200, step.garbage)
    if ('status' in step) return sendError(res, provider, step, key)
    send(res, 200, JSON.stringify(provider === 'anthropic' ? anthropicReply(step, turn) : openAiReply(step, turn)))
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    anthropicBaseUrl: origin,
    openaiBaseUrl: `${origin}/v1`,
    turns,
    script(fn) {
      current = fn
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

type Reply = Extract<ScriptStep, { text?: string }>
type Decoded = Pick<ModelTurn, 'system' | 'messages' | 'tools'>

function decodeAnthropic(body: Record<string, unknown>): Decoded {
  const messages: ModelMessage[] = []
  for (const message of list(body.messages)) {
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : list(message.content)
    if (message.role === 'assistant') {
      const text = blocks.filter((block) => block.type === 'text').map((block) => String(block.text))
      const toolCalls = blocks.filter((block) => block.type === 'tool_use').map((block) => toolCall(String(block.id), String(block.name), block.input))
      messages.push({ role: 'assistant', text: text.join(''), toolCalls })
      continue
    }
    // A user turn holds tool results and texts; each text is its own user message, so consecutive
    // user messages that the plugin joined into one turn decode as they were sent.
    for (const block of blocks) {
      if (block.type === 'text') messages.push({ role: 'user', text: String(block.text) })
      if (block.type !== 'tool_result') continue
      const result = { callId: String(block.tool_use_id), content: textOf(block.content), isError: block.is_error === true }
      const last = messages.at(-1)
      if (last?.role === 'tool') messages[messages.length - 1] = { role: 'tool', results: [...last.results, result] }
      else messages.push({ role: 'tool', results: [result] })
    }
  }
  return { system: textOf(body.system), messages, tools: list(body.tools).map((tool) => String(tool.name)) }
}

function decodeOpenAi(body: Record<string, unknown>): Decoded {
  const system: string[] = []
  const messages: ModelMessage[] = []
  for (const message of list(body.messages)) {
    if (message.role === 'system' || message.role === 'developer') system.push(textOf(message.content))
    else if (message.role === 'user') messages.push({ role: 'user', text: textOf(message.content) })
    else if (message.role === 'assistant') {
      const toolCalls = list(message.tool_calls).map((call) => {
        const fn = (call.function ?? {}) as Record<string, unknown>
        return toolCall(String(call.id), String(fn.name), parseJson(fn.arguments))
      })
      messages.push({ role: 'assistant', text: textOf(message.content), toolCalls })
    } else if (message.role === 'tool') {
      const content = textOf(message.content)
      const isError = content.startsWith(OPENAI_TOOL_ERROR_PREFIX)
      const result = { callId: String(message.tool_call_id), content: isError ? content.slice(OPENAI_TOOL_ERROR_PREFIX.length) : content, isError }
      const last = messages.at(-1)
      if (last?.role === 'tool') messages[messages.length - 1] = { role: 'tool', results: [...last.results, result] }
      else messages.push({ role: 'tool', results: [result] })
    }
  }
  const tools = list(body.tools).map((tool) => String((tool.function as Record<string, unknown> | undefined)?.name ?? tool.name))
  return { system: system.join('\n\n'), messages, tools }
}

function anthropicReply(step: Reply, turn: ModelTurn): Record<string, unknown> {
  const content: unknown[] = step.text ? [{ type: 'text', text: step.text }] : []
  // rawArguments goes out as a JSON string where an object belongs: Anthropic's form of a malformed input.
  for (const call of step.toolCalls ?? []) content.push({ type: 'tool_use', id: `toolu_${id()}`, name: call.name, input: call.rawArguments ?? call.input ?? {} })
  const stop = { end: 'end_turn', tool_use: 'tool_use', max_tokens: 'max_tokens' }[stopOf(step)]
  const usage = usageOf(step, turn)
  return { id: `msg_${id()}`, type: 'message', role: 'assistant', model: turn.model, content, stop_reason: stop, stop_sequence: null, usage: { input_tokens: usage.input, output_tokens: usage.output } }
}

function openAiReply(step: Reply, turn: ModelTurn): Record<string, unknown> {
  const calls = (step.toolCalls ?? []).map((call) => ({ id: `call_${id()}`, type: 'function', function: { name: call.name, arguments: call.rawArguments ?? JSON.stringify(call.input ?? {}) } }))
  const message = { role: 'assistant', content: step.text ?? (calls.length > 0 ? null : ''), refusal: null, ...(calls.length > 0 ? { tool_calls: calls } : {}) }
  const finish = { end: 'stop', tool_use: 'tool_calls', max_tokens: 'length' }[stopOf(step)]
  const usage = usageOf(step, turn)
  return {
    id: `chatcmpl-${id()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: turn.model,
    choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
    usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
  }
}

const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
}

function errorBody(provider: ModelTurn['provider'], status: number, message: string): unknown {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error')
  if (provider === 'anthropic') return { type: 'error', error: { type, message } }
  return { error: { message, type: type === 'rate_limit_error' ? 'requests' : type, param: null, code: status === 429 ? 'rate_limit_exceeded' : status === 401 ? 'invalid_api_key' : null } }
}

function sendError(res: ServerResponse, provider: ModelTurn['provider'], step: { status: number; body?: unknown; retryAfter?: number }, key: string): void {
  // The default 401 quotes the key it refused, as OpenAI's does (partly masked there): a plugin
  // that passes a provider's message on would leak it, and the conformance suite would see that.
  const message = step.status === 401 ? `Incorrect API key provided: ${key}.` : `scripted ${step.status} answer`
  const body = step.body ?? errorBody(provider, step.status, message)
  const headers: Record<string, string> = { 'content-type': 'application/json', 'request-id': `req_${id()}`, 'x-request-id': `req_${id()}` }
  if (step.retryAfter !== undefined) headers['retry-after'] = String(step.retryAfter)
  res.writeHead(step.status, headers)
  res.end(typeof step.body === 'string' ? step.body : JSON.stringify(body))
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${id()}`, 'x-request-id': `req_${id()}` })
  res.end(body)
}

function stopOf(step: Reply): 'end' | 'tool_use' | 'max_tokens' {
  return step.stop ?? ((step.toolCalls ?? []).length > 0 ? 'tool_use' : 'end')
}

/** The scripted usage, or an estimate (four characters a token) of what a provider would count. */
function usageOf(step: Reply, turn: ModelTurn): { input: number; output: number } {
  const said = (step.text ?? '') + JSON.stringify(step.toolCalls ?? [])
  return step.usage ?? { input: Math.ceil(turn.rawBody.length / 4), output: Math.max(1, Math.ceil(said.length / 4)) }
}

function toolCall(callId: string, name: string, input: unknown): ModelToolCall {
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) return { id: callId, name, input: input as Record<string, unknown> }
  return { id: callId, name, input: undefined, malformed: 'the tool input is not a JSON object' }
}

function parseJson(text: unknown): unknown {
  try {
    return typeof text === 'string' ? JSON.parse(text) : text
  } catch {
    return undefined
  }
}

/** Text content in any of the shapes the APIs accept: a string, or a list of text blocks or parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  return list(content)
    .filter((part) => part.type === 'text')
    .map((part) => String(part.text))
    .join('')
}

function list(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null) : []
}

function id(): string {
  return randomBytes(12).toString('hex')
}
