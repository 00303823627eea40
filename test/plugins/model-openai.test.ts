// model-openai through the loader, with the real openai SDK talking HTTP to the scripted model
// server on 127.0.0.1: the model conformance suite, plus what is particular to Chat Completions.
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
const load = (settings: Record<string, unknown> = {}) => loadPlugin('model', 'model-openai', { apiKey: 'sk-openai-x', baseUrl: server.openaiBaseUrl, ...settings }, { log: capturingLogger().log })

t.test('model-openai passes the model conformance suite', async (t) => {
  await modelConformance(t, await importPluginModule('model', 'model-openai'), {
    settings: ({ apiKey, timeoutMs }) => ({ apiKey, timeoutMs, baseUrl: server.openaiBaseUrl }),
    unreachableSettings: async ({ apiKey, timeoutMs }) => ({ apiKey, timeoutMs, baseUrl: `${await closedOrigin()}/v1` }),
    script: (fn) => server.script(fn),
    turns: () => server.turns,
  })
})

t.test('posts a Chat Completions request: bearer key, system message, function tools, tool messages by call id', async (t) => {
  const model = await load()
  t.equal(model.label, 'openai/gpt-4.1', 'the default model names the label')
  server.script(() => ({ text: 'done' }))
  const messages: ModelMessage[] = [
    { role: 'user', text: 'Why does checkout fail?' },
    { role: 'assistant', text: '', toolCalls: [{ id: 'call_1', name: 'read_file', input: { path: 'checkout.js' } }] },
    { role: 'tool', results: [{ callId: 'call_1', content: 'ENOENT', isError: true }] },
    { role: 'user', text: 'The file moved to src/checkout.js.' },
  ]
  await model.complete({ system: 'Investigate.', messages, tools: [TOOL], maxTokens: 700 })
  const turn = server.turns.at(-1)
  t.equal(turn?.headers.authorization, 'Bearer sk-openai-x')
  t.match(lastBody(), {
    model: 'gpt-4.1',
    // A compatible server (any base URL but api.openai.com) gets the long-standing max_tokens.
    max_tokens: 700,
    tools: [{ type: 'function', function: { name: 'read_file', description: 'Reads a file.', parameters: TOOL.inputSchema } }],
    messages: [
      { role: 'system', content: 'Investigate.' },
      { role: 'user', content: 'Why does checkout fail?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"checkout.js"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '[error] ENOENT' },
      { role: 'user', content: 'The file moved to src/checkout.js.' },
    ],
  })
  t.equal(lastBody().max_completion_tokens, undefined)
  t.same(turn?.messages, messages, 'the server decodes it back to the same conversation')
  t.equal(lastBody().stream, undefined, 'not streaming')
})

t.test('OPENAI_* variables in the environment add no organization or project header', async (t) => {
  const saved = { org: process.env.OPENAI_ORG_ID, project: process.env.OPENAI_PROJECT_ID }
  process.env.OPENAI_ORG_ID = 'org-from-environment'
  process.env.OPENAI_PROJECT_ID = 'proj-from-environment'
  t.teardown(() => {
    for (const [name, value] of [['OPENAI_ORG_ID', saved.org], ['OPENAI_PROJECT_ID', saved.project]] as const) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  })
  const model = await load()
  server.script(() => ({ text: 'ok' }))
  await model.complete({ system: '', messages: [{ role: 'user', text: 'hi' }], tools: [], maxTokens: 16 })
  const headers = server.turns.at(-1)?.headers ?? {}
  t.equal(headers['openai-organization'], undefined)
  t.equal(headers['openai-project'], undefined)
  t.same(lastBody().messages, [{ role: 'user', content: 'hi' }], 'no system message for empty instructions')
  t.equal(lastBody().tools, undefined, 'no tools field without tools')
})

t.test("a lenient server's reply: arguments as an object, no finish_reason, no usage", async (t) => {
  const model = await load()
  const reply = { choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_7', function: { name: 'read_file', arguments: { path: 'a.js' } } }] } }] }
  server.script(() => ({ garbage: JSON.stringify(reply) }))
  t.same(await model.complete({ system: 's', messages: [{ role: 'user', text: 'go' }], tools: [TOOL], maxTokens: 64 }), {
    text: '',
    toolCalls: [{ id: 'call_7', name: 'read_file', input: { path: 'a.js' } }],
    stop: 'tool_use',
    usage: { inputTokens: 0, outputTokens: 0 },
  })
})

t.test('arguments that are JSON but not an object, or not JSON, say which', async (t) => {
  const model = await load()
  server.script(() => ({ toolCalls: [{ name: 'read_file', rawArguments: 'null' }, { name: 'read_file', rawArguments: '{path: a.js}' }] }))
  const reply = await model.complete({ system: 's', messages: [{ role: 'user', text: 'go' }], tools: [TOOL], maxTokens: 64 })
  t.same(
    reply.toolCalls.map((call) => call.malformed),
    ['the arguments are null, not a JSON object', 'the arguments are not valid JSON'],
  )
})

t.test('errors say what to check, with the status and error code but never the provider text', async (t) => {
  const model = await load()
  const ask = () => model.complete({ system: 's', messages: [{ role: 'user', text: 'go' }], tools: [], maxTokens: 64 })
  server.script(() => ({ status: 429, retryAfter: 2 }))
  await t.rejects(ask(), { name: 'ModelUnavailable', cause_: 'rate_limited', message: 'openai/gpt-4.1 answered 429 rate_limit_exceeded: rate limited; retry after 2 s.' })
  server.script(() => ({ status: 401 }))
  const refused = await ask().catch((error: Error) => error)
  t.match(refused, { name: 'ModelRejected', status: 401, message: /401 invalid_api_key: the API key was refused/ })
  t.notMatch((refused as Error).message, /Incorrect API key|sk-openai-x/, "OpenAI's own text (which quotes the key) is not repeated")
  server.script(() => ({ status: 404, body: { error: { message: 'The model `gpt-nope` does not exist', type: 'invalid_request_error', code: 'model_not_found' } } }))
  const missing = await ask().catch((error: Error) => error)
  t.match(missing, { status: 404, message: /404 model_not_found: no such model or endpoint/ })
  t.notMatch((missing as Error).message, /gpt-nope/)
})

t.test('loadModelPlugin loads model-openai when SVC_MODEL_PLUGIN selects it, pointed at SVC_MODEL_BASE_URL', async (t) => {
  t.equal(await loadModelPlugin(loadConfig({}), capturingLogger().log), undefined, 'no MODEL_API_KEY, no model')
  const { log, lines } = capturingLogger()
  const env = { MODEL_API_KEY: 'sk-openai-from-env-123456', SVC_MODEL_PLUGIN: 'model-openai', SVC_MODEL_NAME: 'qwen2.5-coder', SVC_MODEL_BASE_URL: `${server.openaiBaseUrl}/` }
  const model = await loadModelPlugin(loadConfig(env), log)
  t.equal(model?.label, 'openai/qwen2.5-coder')
  server.script(() => ({ text: 'hello from a local server' }))
  const reply = await model?.complete({ system: 's', messages: [{ role: 'user', text: 'hi' }], tools: [], maxTokens: 16 })
  t.equal(reply?.text, 'hello from a local server')
  t.equal(server.turns.at(-1)?.headers.authorization, 'Bearer sk-openai-from-env-123456')
  t.equal(server.turns.at(-1)?.model, 'qwen2.5-coder')
  t.match(lines.join(''), /"msg":"model plugin loaded".*"model":"openai\/qwen2\.5-coder"/)
  t.notMatch(lines.join(''), /sk-openai-from-env-123456/, 'the key is not logged')
})
