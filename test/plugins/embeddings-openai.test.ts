// embeddings-openai through the loader, with the real openai SDK talking HTTP to an
// OpenAI-compatible embeddings endpoint on 127.0.0.1: the embeddings conformance suite, plus the
// wire (key, model, dimensions, batches), cutting longer vectors, and every failure.
import t from 'tap'
import { embeddingsConformance, SAMPLE_NARRATIVES } from '../../plugins/conformance/embeddings.js'
import { capturingLogger } from '../../plugins/conformance/leaks.js'
import { loadConfig } from '../../shared/config/index.js'
import { EmbeddingsUnavailable } from '../../shared/plugins/embeddings-types.js'
import { importPluginModule, loadEmbeddingsPlugin, loadPlugin } from '../../shared/plugins/loader.js'
import { startEmbeddingsServer, type EmbeddingsStep } from '../helpers/loopback/embeddings-server.js'
import { closedOrigin } from '../helpers/loopback/github-loopback.js'

const server = await startEmbeddingsServer()
t.teardown(() => server.close())
t.beforeEach(() => server.script(() => undefined))

const KEY = 'sk-embeddings-test-0123456789abcdef'
const load = (settings: Record<string, unknown> = {}, log = capturingLogger().log) => loadPlugin('embeddings', 'embeddings-openai', { apiKey: KEY, baseUrl: server.baseUrl, ...settings }, { log })
/** Whether a and b are the same vectors but for float rounding (renormalising a unit vector moves its last bits). */
const near = (a: readonly (readonly number[] | undefined)[], b: readonly number[][]): boolean =>
  a.length === b.length && a.every((vector, i) => vector !== undefined && vector.length === b[i]!.length && vector.every((value, j) => Math.abs(value - b[i]![j]!) < 1e-12))

/** The error embed rejected with (a test fails if it resolved). */
const failure = (call: Promise<unknown>): Promise<EmbeddingsUnavailable> =>
  call.then(
    () => {
      throw new Error('embed resolved, but a failure was expected')
    },
    (error: EmbeddingsUnavailable) => error,
  )

t.test('embeddings-openai passes the embeddings conformance suite', async (t) => {
  await embeddingsConformance(t, await importPluginModule('embeddings', 'embeddings-openai'), {
    settings: ({ apiKey }) => ({ apiKey, baseUrl: server.baseUrl }),
    deterministic: true,
    unreachableSettings: async ({ apiKey }) => ({ apiKey, baseUrl: `${await closedOrigin()}/v1` }),
  })
})

t.test('asks for 384 float dimensions of text-embedding-3-small with the key in the Authorization header only', async (t) => {
  const plugin = await load()
  t.equal(plugin.model, 'openai:text-embedding-3-small')
  t.notOk(plugin.cpuBound, 'network-bound: it stays on the main thread')
  const before = server.requests.length
  const vectors = await plugin.embed(SAMPLE_NARRATIVES.slice(0, 2))
  const request = server.requests[before]!
  t.equal(server.requests.length, before + 1, 'one request')
  t.equal(request.headers.authorization, `Bearer ${KEY}`)
  t.match(JSON.parse(request.rawBody), { model: 'text-embedding-3-small', input: SAMPLE_NARRATIVES.slice(0, 2), dimensions: 384, encoding_format: 'float' })
  t.notOk(request.rawBody.includes(KEY), 'the key is not in the body')
  t.ok(near(vectors, SAMPLE_NARRATIVES.slice(0, 2).map((text) => server.vectorOf(text, 384))), "the endpoint's vectors, in order")
})

t.test('sends 64 texts a request and none for blank texts', async (t) => {
  const plugin = await load()
  const texts = Array.from({ length: 150 }, (_, i) => (i % 50 === 7 ? '  ' : `narrative ${i}`))
  const before = server.requests.length
  const vectors = await plugin.embed(texts)
  t.same(server.requests.slice(before).map((request) => request.input.length), [64, 64, 19], '147 texts that are not blank, in requests of 64')
  t.notOk(server.requests.slice(before).some((request) => request.input.includes('  ')), 'no blank text sent')
  t.ok(near([vectors[149]], [server.vectorOf('narrative 149', 384)]), 'the last text gets its own vector')
  t.same(vectors[7]?.slice(0, 2), [1, 0], 'a blank text gets the blank vector')
  const small = await load({ batchSize: 10 })
  const count = server.requests.length
  await small.embed(texts.slice(0, 25))
  t.equal(server.requests.length - count, 3, 'batchSize sets the request size')
})

t.test('a model that refuses dimensions is asked again without it, and its longer vectors are cut and renormalised', async (t) => {
  const { log, lines } = capturingLogger()
  const plugin = await load({ model: 'text-embedding-ada-002' }, log)
  server.script(() => ({ refuseDimensions: true }))
  const before = server.requests.length
  const [vector] = await plugin.embed(['Dead click on "Apply coupon"'])
  t.same(server.requests.slice(before).map((request) => request.dimensions), [384, undefined], 'asked with, then without dimensions')
  t.ok(near([vector], [server.vectorOf('Dead click on "Apply coupon"', 384)]), 'the leading 384 of 1536 numbers, at unit length')
  t.match(lines.join(''), /does not take dimensions/)
  const next = server.requests.length
  await plugin.embed(['another'])
  t.same(server.requests.slice(next).map((request) => request.dimensions), [undefined], 'from then on, asked without it at once')
})

t.test('an endpoint that ignores dimensions: longer vectors are cut; shorter ones are refused, saying what to choose', async (t) => {
  const plugin = await load({ model: 'nomic-embed-text' })
  server.script(() => ({ nativeDimensions: 768 }))
  const [vector] = await plugin.embed(['Form abandoned on /signup'])
  t.ok(near([vector], [server.vectorOf('Form abandoned on /signup', 384)]), 'the leading 384 of 768 numbers, at unit length')
  server.script(() => ({ nativeDimensions: 256 }))
  const error = await failure(plugin.embed(['Form abandoned on /signup']))
  t.type(error, EmbeddingsUnavailable)
  t.match(error.message, /vectors of 256 dimensions; matching needs at least 384\. Choose a model with at least 384 \(EMBEDDINGS_MODEL\)/)
})

t.test('failures are EmbeddingsUnavailable after exactly one request, saying what to check, never with the key', async (t) => {
  const plugin = await load()
  const once = async (step: EmbeddingsStep) => {
    server.script(() => step)
    const before = server.requests.length
    const error = await failure(plugin.embed(['text']))
    t.equal(server.requests.length - before, 1, 'one request: the SDK does not retry')
    t.type(error, EmbeddingsUnavailable)
    t.notOk(error.message.includes(KEY), 'no key in the message')
    return error
  }
  t.match(await once({ status: 429, retryAfter: '2' }), { message: 'openai:text-embedding-3-small answered 429 rate_limit_exceeded: rate limited; retry after 2 s.', retryAfterMs: 2000 })
  t.match(await once({ status: 429, retryAfterMs: 1500 }), { retryAfterMs: 1500 }, "OpenAI's retry-after-ms is preferred")
  t.equal((await once({ status: 429 })).retryAfterMs, undefined, 'no header, no wait')
  t.match(await once({ status: 503 }), { message: /answered 503 server_error: the provider has a problem/ })
  // OpenAI's 401 text quotes part of the key: only its code is repeated.
  const refused = await once({ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}.`, type: 'invalid_request_error', code: 'invalid_api_key' } } })
  t.match(refused.message, /answered 401 invalid_api_key: the API key was refused\. Check EMBEDDINGS_API_KEY\./)
  t.notMatch(refused.message, /Incorrect/)
  t.match(await once({ status: 404, body: { error: { message: 'The model `nope` does not exist', type: 'invalid_request_error', code: 'model_not_found' } } }), { message: /404 model_not_found: no such model or endpoint/ })
  t.match(await once({ garbage: '<html>proxy error</html>' }), { message: /not valid JSON|not an embeddings list/ })
  t.match(await once({ garbage: JSON.stringify({ data: [] }) }), { message: /not an embeddings list \(0 embeddings for 1 texts\)/ })
  t.match(await once({ garbage: JSON.stringify({ data: [{ index: 0, embedding: ['a'] }] }) }), { message: /an embedding that is not a list of numbers/ })
})

t.test('an endpoint that never answers is EmbeddingsUnavailable once timeoutMs has passed', async (t) => {
  const plugin = await load({ timeoutMs: 300 })
  server.script(() => ({ hang: true }))
  t.match(await failure(plugin.embed(['text'])), { name: 'EmbeddingsUnavailable', message: 'openai:text-embedding-3-small did not answer within 300 ms. Try again later, or check the endpoint\'s load.' })
})

t.test('loadEmbeddingsPlugin: EMBEDDINGS_API_KEY selects embeddings-openai, pointed at EMBEDDINGS_BASE_URL with EMBEDDINGS_MODEL', async (t) => {
  const { log, lines } = capturingLogger()
  const env = { EMBEDDINGS_API_KEY: 'sk-from-env-abcdef123456', EMBEDDINGS_BASE_URL: `${server.baseUrl}/`, EMBEDDINGS_MODEL: 'bge-small-en' }
  const plugin = await loadEmbeddingsPlugin(loadConfig(env), log)
  t.equal(plugin?.model, 'openai:bge-small-en')
  const before = server.requests.length
  await plugin?.embed(['hello'])
  t.equal(server.requests[before]?.model, 'bge-small-en')
  t.equal(server.requests[before]?.headers.authorization, 'Bearer sk-from-env-abcdef123456')
  t.match(lines.join(''), /"msg":"embeddings plugin loaded".*"model":"openai:bge-small-en"/)
  t.notMatch(lines.join(''), /sk-from-env-abcdef123456/, 'the key is not logged')
  await t.rejects(loadEmbeddingsPlugin(loadConfig({ ...env, EMBEDDINGS_BASE_URL: undefined, SVC_EMBEDDINGS_PLUGIN: '@acme/no-such-embeddings' }), log), {
    name: 'PluginError',
    message: /no npm package of that name is installed.*\(SVC_EMBEDDINGS_PLUGIN selects the plugin\.\)/,
  })
})
