// model-anthropic through the loader, with the real @anthropic-ai/sdk talking HTTP to the scripted
// model server on 127.0.0.1: the model conformance suite, plus what is particular to the Messages API.
import t from 'tap'
import { capturingLogger } from '../../plugins/conformance/leaks.js'
import { modelConformance } from '../../plugins/conformance/model.js'
import { loadConfig } from '../../shared/config/index.js'
import { importPluginModule, loadModelPlugin, loadPlugin } from '../../shared/plugins/loader.js'
import type { ModelMessage, ModelTool } from '../../shared/plugins/types.js'
import { closedOrigin } from '../helpers/loopback/github-loopback.js'
import { startModelServer } from '../helpers/loopback/model-server.js'

const server = await startModelServer()
t.teardown(() => server.close())

const TOOL: ModelTool = { name: 'read_file', description: 'Reads a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }
const lastBody = (): Record<string, unknown> => JSON.parse(server.turns.at(-1)?.rawBody ?? '{}') as Record<string, unknown>

t.test('model-anthropic passes the model conformance suite', async (t) => {
  await modelConformance(t, await importPluginModule('model', 'model-anthropic'), {
    settings: ({ apiKey, timeoutMs }) => ({ apiKey, timeoutMs, baseUrl: server.anthropicBaseUrl }),
    unreachableSettings: async ({ apiKey, timeoutMs }) => ({ apiKey, timeoutMs, baseUrl: await closedOrigin() }),
    script: (fn) => server.script(fn),
    turns: () => server.turns,
  })
})

t.test('posts a Messages API request: key and version headers, tools with input_schema, results as tool_result blocks', async (t) => {
  const model = await loadPlugin('model', 'model-anthropic', { apiKey: 'sk-ant-wire-test', baseUrl: server.anthropicBaseUrl }, { log: capturingLogger().log })
  t.equal(model.label, 'anthropic/claude-sonnet-4-5', 'the default model names the label')
  server.script(() => ({ text: 'done' }))
  const messages: ModelMessage[] = [
    { role: 'user', text: 'Why does checkout fail?' },
    { role: 'assistant', text: '', toolCalls: [{ id: 'toolu_1', name: 'read_file', input: { path: 'checkout.js' } }] },
    { role: 'tool', results: [{ callId: 'toolu_1', content: 'ENOENT', isError: true }] },
    { role: 'user', text: 'The file moved to src/checkout.js.' },
  ]
  await model.complete({ system: 'Investigate.', messages, tools: [TOOL], maxTokens: 700 })
  const turn = server.turns.at(-1)
  // The SDK sends the key as a bearer token (x-api-key in older versions); either is a header.
  t.ok(turn?.headers['x-api-key'] === 'sk-ant-wire-test' || turn?.headers.authorization === 'Bearer sk-ant-wire-test', 'the key is in a header')
  t.match(turn?.headers['anthropic-version'], /^\d{4}-\d{2}-\d{2}$/)
  t.equal(turn?.model, 'claude-sonnet-4-5')
  t.match(lastBody(), {
    model: 'claude-sonnet-4-5',
    max_tokens: 700,
    system: 'Investigate.',
    tools: [{ name: 'read_file', description: 'Reads a file.', input_schema: TOOL.inputSchema }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Why does checkout fail?' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'checkout.js' } }] },
      // Turns alternate: the user's words after a tool result join the result's turn.
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'ENOENT', is_error: true },
          { type: 'text', text: 'The file moved to src/checkout.js.' },
        ],
      },
    ],
  })
  t.equal((lastBody().messages as unknown[]).length, 3)
  t.same(turn?.messages, messages, 'the server decodes it back to the same conversation')
  t.equal(lastBody().stream, undefined, 'not streaming')
})

t.test('counts cached prompt tokens as input, and ignores blocks other than text and tool_use', async (t) => {
  const model = await loadPlugin('model', 'model-anthropic', { apiKey: 'sk-ant-x', baseUrl: server.anthropicBaseUrl }, { log: capturingLogger().log })
  const reply = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'thinking', thinking: 'hmm', signature: 's' }, { type: 'text', text: 'Because ' }, { type: 'text', text: 'of a race.' }],
    stop_reason: 'end_turn',
    usage: { input_tokens: 10, cache_creation_input_tokens: 200, cache_read_input_tokens: 3000, output_tokens: 7 },
  }
  server.script(() => ({ garbage: JSON.stringify(reply) }))
  t.same(await model.complete({ system: '', messages: [{ role: 'user', text: 'why?' }], tools: [], maxTokens: 64 }), {
    text: 'Because of a race.',
    toolCalls: [],
    stop: 'end',
    usage: { inputTokens: 3210, outputTokens: 7 },
  })
  t.equal(lastBody().system, undefined, 'no system field for empty instructions')
  t.equal(lastBody().tools, undefined, 'no tools field without tools')
})

t.test('a tool_use input that is not an object is malformed, and usage without numbers counts 0', async (t) => {
  const model = await loadPlugin('model', 'model-anthropic', { apiKey: 'sk-ant-x', baseUrl: server.anthropicBaseUrl }, { log: capturingLogger().log })
  const reply = { id: 'msg_2', type: 'message', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_9', name: 'read_file', input: ['a'] }], stop_reason: 'tool_use' }
  server.script(() => ({ garbage: JSON.stringify(reply) }))
  const answer = await model.complete({ system: 's', messages: [{ role: 'user', text: 'go' }], tools: [TOOL], maxTokens: 64 })
  t.same(answer.toolCalls, [{ id: 'toolu_9', name: 'read_file', input: undefined, malformed: 'the tool input is an array, not a JSON object' }])
  t.same(answer.usage, { inputTokens: 0, outputTokens: 0 })
  t.equal(answer.stop, 'tool_use')
})

t.test('errors say what to check, with the status and error type but never the provider text', async (t) => {
  const model = await loadPlugin('model', 'model-anthropic', { apiKey: 'sk-ant-x', baseUrl: server.anthropicBaseUrl }, { log: capturingLogger().log })
  const ask = () => model.complete({ system: 's', messages: [{ role: 'user', text: 'go' }], tools: [], maxTokens: 64 })
  server.script(() => ({ status: 429, retryAfter: 30 }))
  await t.rejects(ask(), { name: 'ModelUnavailable', cause_: 'rate_limited', message: 'anthropic/claude-sonnet-4-5 answered 429 rate_limit_error: rate limited; retry after 30 s.' })
  server.script(() => ({ status: 529 }))
  await t.rejects(ask(), { cause_: 'server_error', message: /529 overloaded_error/ })
  server.script(() => ({ status: 401 }))
  await t.rejects(ask(), { name: 'ModelRejected', status: 401, message: /401 authentication_error: the API key was refused/ })
  server.script(() => ({ status: 404, body: { type: 'error', error: { type: 'not_found_error', message: 'model: claude-nope' } } }))
  const missing = await ask().catch((error: Error) => error)
  t.match(missing, { status: 404, message: /no such model or endpoint/ })
  t.notMatch((missing as Error).message, /claude-nope/, "the provider's own text is not repeated")
})

t.test('loadModelPlugin loads model-anthropic from MODEL_API_KEY and the SVC_MODEL_* variables', async (t) => {
  t.equal(await loadModelPlugin(loadConfig({}), capturingLogger().log), undefined, 'no MODEL_API_KEY, no model')
  const { log, lines } = capturingLogger()
  const env = { MODEL_API_KEY: 'sk-ant-from-env-123456', SVC_MODEL_NAME: 'claude-test-1', SVC_MODEL_BASE_URL: server.anthropicBaseUrl, SVC_MODEL_TIMEOUT_MS: '5000' }
  const model = await loadModelPlugin(loadConfig(env), log)
  t.equal(model?.label, 'anthropic/claude-test-1')
  server.script(() => ({ text: 'hello from the loopback' }))
  const reply = await model?.complete({ system: 's', messages: [{ role: 'user', text: 'hi' }], tools: [], maxTokens: 16 })
  t.equal(reply?.text, 'hello from the loopback')
  t.match(JSON.stringify(server.turns.at(-1)?.headers), /sk-ant-from-env-123456/, 'the key from MODEL_API_KEY was sent')
  t.equal(server.turns.at(-1)?.model, 'claude-test-1')
  t.match(lines.join(''), /"msg":"model plugin loaded".*"model":"anthropic\/claude-test-1"/)
  t.notMatch(lines.join(''), /sk-ant-from-env-123456/, 'the key is not logged')
})
