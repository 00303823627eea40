/**
 * The conformance suite for model plugins: any plugin of kind model, ours or a stranger's, runs it
 * against a fake provider its test provides (see plugins/README.md). It covers a text answer, a
 * tool call round trip, malformed tool arguments, stop reasons and usage, every failure the
 * investigator tells apart (rate limited, server error, timeout, abort, unreachable, a reply that
 * is not the provider's, a refused request), that one call is one request (no hidden retries),
 * and that the API key travels only in a header: never in a body, an error or a log line.
 */
import { randomBytes } from 'node:crypto'
import type { Test } from 'tap'
import { checkPluginModule, instantiatePlugin } from '../../shared/plugins/loader.js'
import { ModelRejected, ModelUnavailable, type ModelMessage, type ModelPlugin, type ModelRequest, type ModelTool, type PluginModule } from '../../shared/plugins/types.js'
import { assertNoSecrets, capturingLogger } from './leaks.js'

/** How the fake answers one request. */
export type ModelScriptStep =
  /** A model reply; stop defaults to tool_use when there are tool calls, else end; usage to an estimate. */
  | {
      readonly text?: string
      /** rawArguments is sent verbatim instead of input (e.g. invalid JSON, or a JSON array). */
      readonly toolCalls?: ReadonlyArray<{ readonly name: string; readonly input?: unknown; readonly rawArguments?: string }>
      readonly usage?: { readonly input: number; readonly output: number }
      readonly stop?: 'end' | 'tool_use' | 'max_tokens'
    }
  /** An HTTP error in the provider's error format; body replaces the default error body. */
  | { readonly status: number; readonly body?: unknown; readonly retryAfter?: number }
  /** Never answers (until the fake closes). */
  | { readonly hang: true }
  /** 200 with a body that is not the provider's format. */
  | { readonly garbage: string }

/** One request as the fake received it, decoded into the neutral form. */
export interface ModelHarnessTurn {
  readonly system: string
  readonly messages: readonly ModelMessage[]
  /** Names of the tools offered. */
  readonly tools: readonly string[]
  /** The request body exactly as received. */
  readonly rawBody: string
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string | undefined>>
}

/** Decides the answer to a turn; index counts the fake's turns from 0. */
export type ModelHarnessScript = (turn: ModelHarnessTurn, index: number) => ModelScriptStep | Promise<ModelScriptStep>

/** A fake provider on 127.0.0.1 with controls, for modelConformance. */
export interface ModelHarness {
  /** Settings that point the plugin at the fake, with this key and timeout. */
  settings(options: { readonly apiKey: string; readonly timeoutMs: number }): Record<string, unknown>
  /** Settings that point the plugin at an address on 127.0.0.1 where nothing listens. */
  unreachableSettings(options: { readonly apiKey: string; readonly timeoutMs: number }): Promise<Record<string, unknown>>
  /** Replaces the fake's script. */
  script(fn: ModelHarnessScript): void
  /** Every request received so far, in order. */
  turns(): readonly ModelHarnessTurn[]
}

const TOOLS: readonly ModelTool[] = [
  { name: 'read_file', description: 'Reads a file of the repository.', inputSchema: { type: 'object', properties: { path: { type: 'string' }, line: { type: 'integer' } }, required: ['path'] } },
  { name: 'search_code', description: 'Searches the repository.', inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } },
]
const SYSTEM = 'You investigate browser errors. Use the tools; answer with the cause.'
const QUESTION: ModelMessage = { role: 'user', text: '<event>TypeError: Cannot read properties of undefined (reading "id") at app.js:42</event>' }
// Slow enough that no loopback answer trips it, quick enough that the hanging test stays short.
const QUICK_TIMEOUT_MS = 600

/** Runs the model conformance suite against module as subtests of t. */
export async function modelConformance(t: Test, module: unknown, harness: ModelHarness): Promise<void> {
  const plugin = checkPluginModule('model', (module as PluginModule).manifest?.name ?? 'unknown', module, false)
  const { log, lines } = capturingLogger()
  const apiKey = `sk-conformance-${randomBytes(16).toString('hex')}`
  const shown: string[] = []
  const create = (settings: Record<string, unknown>): Promise<ModelPlugin> => instantiatePlugin(plugin, 'model', settings, { log })
  const model = await create(harness.settings({ apiKey, timeoutMs: 15_000 }))
  const quick = await create(harness.settings({ apiKey, timeoutMs: QUICK_TIMEOUT_MS }))
  const ask = (overrides: Partial<ModelRequest> = {}, using = model) => using.complete({ system: SYSTEM, messages: [QUESTION], tools: TOOLS, maxTokens: 1024, ...overrides })
  /** The error complete() rejected with (kept for the leak check), or undefined if it resolved. */
  const failure = async (call: Promise<unknown>): Promise<Error | undefined> =>
    call.then(
      () => undefined,
      (error: Error) => {
        shown.push(String(error?.message))
        return error
      },
    )
  const unavailable = async (t: Test, call: Promise<unknown>, cause: ModelUnavailable['cause_'], what: string): Promise<void> => {
    const error = await failure(call)
    t.type(error, ModelUnavailable, `${what}: ModelUnavailable`)
    t.equal((error as ModelUnavailable | undefined)?.cause_, cause, `${what}: cause ${cause}`)
  }

  await t.test('has a label of the form provider/model', async (t) => {
    t.match(model.label, /^[a-z0-9-]+\/\S+$/)
  })

  await t.test('answers plain text, and the provider receives the system text, messages and tools as sent', async (t) => {
    harness.script(() => ({ text: 'The handler reads user.id before the user has loaded.' }))
    const reply = await ask()
    t.same(reply, { text: 'The handler reads user.id before the user has loaded.', toolCalls: [], stop: 'end', usage: reply.usage })
    const turn = harness.turns().at(-1)
    t.equal(turn?.system, SYSTEM)
    t.same(turn?.messages, [QUESTION])
    t.same(turn?.tools, ['read_file', 'search_code'])
  })

  await t.test('a tool call round trip keeps the input object and the results intact', async (t) => {
    const input = { path: 'src/app.js', line: 42, context: { before: 3, after: [1, 'two', null] } }
    harness.script((turn) =>
      turn.messages.at(-1)?.role === 'tool' ? { text: 'user is undefined until /me answers.' } : { text: 'Reading the file.', toolCalls: [{ name: 'read_file', input }, { name: 'search_code', input: { query: 'user.id' } }] },
    )
    const first = await ask()
    t.equal(first.stop, 'tool_use')
    t.equal(first.text, 'Reading the file.')
    t.same(
      first.toolCalls.map((call) => [call.name, call.input, call.malformed]),
      [
        ['read_file', input, undefined],
        ['search_code', { query: 'user.id' }, undefined],
      ],
    )
    t.ok(first.toolCalls.every((call) => typeof call.id === 'string' && call.id.length > 0), 'every call has an id')
    t.not(first.toolCalls[0]?.id, first.toolCalls[1]?.id, 'ids differ')
    const messages: ModelMessage[] = [
      QUESTION,
      { role: 'assistant', text: first.text, toolCalls: first.toolCalls },
      {
        role: 'tool',
        results: [
          { callId: first.toolCalls[0]!.id, content: '41: const user = state.user\n42: return user.id', isError: false },
          { callId: first.toolCalls[1]!.id, content: 'search failed: index not built', isError: true },
        ],
      },
    ]
    const second = await ask({ messages })
    t.same(second, { text: 'user is undefined until /me answers.', toolCalls: [], stop: 'end', usage: second.usage })
    t.same(harness.turns().at(-1)?.messages, messages, 'the provider received the whole conversation, tool calls and results included')
  })

  await t.test('tool arguments that are not a JSON object come back malformed, not thrown', async (t) => {
    harness.script(() => ({ toolCalls: [{ name: 'read_file', rawArguments: '{"path": "src/app.js"' }, { name: 'search_code', rawArguments: '["user.id"]' }] }))
    const reply = await ask()
    t.equal(reply.toolCalls.length, 2)
    for (const call of reply.toolCalls) {
      t.equal(call.input, undefined, `${call.name}: no input`)
      t.match(call.malformed, /\S/, `${call.name}: malformed says why`)
      t.ok(call.id.length > 0, `${call.name}: the call keeps its id, so the loop can answer it`)
    }
    t.same(
      reply.toolCalls.map((call) => call.name),
      ['read_file', 'search_code'],
    )
  })

  await t.test('reports a reply cut off at the token limit as max_tokens', async (t) => {
    harness.script(() => ({ text: 'The cause is', stop: 'max_tokens' }))
    t.match(await ask(), { text: 'The cause is', stop: 'max_tokens' })
  })

  await t.test("reports the provider's token usage", async (t) => {
    harness.script(() => ({ text: 'ok', usage: { input: 1234, output: 56 } }))
    t.same((await ask()).usage, { inputTokens: 1234, outputTokens: 56 })
  })

  await t.test('a 429 is ModelUnavailable rate_limited, after exactly one request', async (t) => {
    harness.script(() => ({ status: 429, retryAfter: 20 }))
    const before = harness.turns().length
    await unavailable(t, ask(), 'rate_limited', '429')
    t.equal(harness.turns().length, before + 1, 'the plugin did not retry: the investigator decides that')
  })

  await t.test('a 5xx is ModelUnavailable server_error, after exactly one request', async (t) => {
    for (const status of [500, 503]) {
      harness.script(() => ({ status }))
      const before = harness.turns().length
      await unavailable(t, ask(), 'server_error', String(status))
      t.equal(harness.turns().length, before + 1, `${status}: not retried`)
    }
  })

  await t.test('a refused request (400, 401, 403, 404) is ModelRejected with that status', async (t) => {
    for (const status of [400, 401, 403, 404]) {
      harness.script(() => ({ status }))
      const error = await failure(ask())
      t.type(error, ModelRejected, `${status}: ModelRejected`)
      t.equal((error as ModelRejected | undefined)?.status, status)
    }
  })

  await t.test("a 200 that is not the provider's format is ModelUnavailable bad_reply", async (t) => {
    for (const garbage of ['<html><body>Welcome to nginx!</body></html>', '{"hello": "world"}', '{"truncated": ']) {
      harness.script(() => ({ garbage }))
      await unavailable(t, ask(), 'bad_reply', JSON.stringify(garbage.slice(0, 20)))
    }
  })

  await t.test('a provider that never answers is ModelUnavailable timeout once timeoutMs has passed', async (t) => {
    harness.script(() => ({ hang: true }))
    const started = Date.now()
    await unavailable(t, ask({}, quick), 'timeout', 'no answer')
    const elapsed = Date.now() - started
    t.ok(elapsed >= QUICK_TIMEOUT_MS - 50 && elapsed < QUICK_TIMEOUT_MS + 3000, `gave up after ${elapsed} ms (timeoutMs ${QUICK_TIMEOUT_MS})`)
  })

  await t.test("the caller's abort rejects promptly, as ModelUnavailable timeout or an AbortError", async (t) => {
    harness.script(() => ({ hang: true }))
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    const started = Date.now()
    const error = await failure(ask({ signal: controller.signal }))
    t.ok(error?.name === 'AbortError' || (error instanceof ModelUnavailable && error.cause_ === 'timeout'), `rejected with ${error?.name}`)
    t.ok(Date.now() - started < 2000, `within ${Date.now() - started} ms of a 15 s timeout`)
    const already = await failure(ask({ signal: AbortSignal.abort() }))
    t.ok(already !== undefined, 'an already aborted signal rejects too')
  })

  await t.test('an address where nothing listens is ModelUnavailable unreachable', async (t) => {
    const closed = await create(await harness.unreachableSettings({ apiKey, timeoutMs: 5000 }))
    await unavailable(t, closed.complete({ system: SYSTEM, messages: [QUESTION], tools: TOOLS, maxTokens: 64 }), 'unreachable', 'closed port')
  })

  await t.test('the API key travels only in a header: never in a body, an error or a log line', async (t) => {
    const turns = harness.turns()
    t.ok(turns.length >= 10 && shown.length >= 10 && lines.length > 0, 'requests, errors and log lines were collected from the subtests above')
    t.ok(
      turns.every((turn) => Object.values(turn.headers).some((value) => value?.includes(apiKey))),
      'every request carried the key in a header',
    )
    assertNoSecrets(t, turns.map((turn) => turn.rawBody).join('\n'), [apiKey], `${turns.length} request bodies`)
    assertNoSecrets(t, [...shown, ...lines, model.label].join('\n'), [apiKey], `${shown.length} errors and ${lines.length} log lines`)
  })
}
