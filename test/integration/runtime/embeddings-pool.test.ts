// The matcher's embedder (services/matcher/embeddings/): embeddings-local computed in real piscina
// worker threads, from the TypeScript sources and from the compiled tree svc runs; a remote plugin
// on the main thread; every plugin's answer checked; SVC_EMBEDDINGS_PLUGIN=none.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import t from 'tap'
import { SAMPLE_NARRATIVES } from '../../../plugins/conformance/embeddings.js'
import { capturingLogger } from '../../../plugins/conformance/leaks.js'
import { embedText } from '../../../plugins/embeddings-local/hashed-ngrams.js'
import { createEmbedder, mainThreadEmbedder, POOL_TASK_TEXTS } from '../../../services/matcher/embeddings/index.js'
import { loadConfig } from '../../../shared/config/index.js'
import { EmbeddingsUnavailable, type EmbeddingsPlugin } from '../../../shared/plugins/embeddings-types.js'
import { startEmbeddingsServer } from '../../helpers/loopback/embeddings-server.js'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
const texts = Array.from({ length: 3 * POOL_TASK_TEXTS + 5 }, (_, i) => `${SAMPLE_NARRATIVES[i % SAMPLE_NARRATIVES.length]} [${'abcdefghij'[i % 10]}${i}]`)

for (const threads of [1, 2]) {
  t.test(`embeddings-local in a pool of ${threads} thread(s): the plugin's own vectors, in order, across tasks`, async (t) => {
    const { log, lines } = capturingLogger()
    const embedder = await createEmbedder(loadConfig({ SVC_EMBEDDINGS_POOL_THREADS: String(threads) }), log)
    t.ok(embedder, 'embeddings-local is there with nothing configured')
    t.teardown(() => embedder?.close())
    t.equal(embedder?.model, 'local:hashed-ngrams-v1')
    t.same(await embedder?.embed(texts), texts.map(embedText), `${texts.length} texts, split into tasks of ${POOL_TASK_TEXTS}, come back whole and in order`)
    t.same(await embedder?.embed([]), [])
    t.match(lines.join(''), new RegExp(`"msg":"embeddings: computed in the matcher's worker threads".*"threads":${threads}`))
  })
}

t.test('concurrent calls to one pool each get their own texts\' vectors', async (t) => {
  const embedder = await createEmbedder(loadConfig({ SVC_EMBEDDINGS_POOL_THREADS: '2' }), capturingLogger().log)
  t.teardown(() => embedder?.close())
  const calls = SAMPLE_NARRATIVES.map((text) => embedder!.embed([text, `${text} again`]))
  t.same(await Promise.all(calls), SAMPLE_NARRATIVES.map((text) => [embedText(text), embedText(`${text} again`)]))
})

t.test('SVC_EMBEDDINGS_PLUGIN=none: no embedder', async (t) => {
  const { log, lines } = capturingLogger()
  t.equal(await createEmbedder(loadConfig({ SVC_EMBEDDINGS_PLUGIN: 'none' }), log), undefined)
  t.match(lines.join(''), /embeddings plugin: none/)
})

t.test('embeddings-openai stays on the main thread: no pool, requests from this process', async (t) => {
  const server = await startEmbeddingsServer()
  t.teardown(() => server.close())
  const { log, lines } = capturingLogger()
  const embedder = await createEmbedder(loadConfig({ EMBEDDINGS_API_KEY: 'sk-pool-test', EMBEDDINGS_BASE_URL: server.baseUrl }), log)
  t.teardown(() => embedder?.close())
  t.equal(embedder?.model, 'openai:text-embedding-3-small')
  const vectors = await embedder!.embed(['one', 'two'])
  const expected = [server.vectorOf('one', 384), server.vectorOf('two', 384)]
  t.ok(vectors.every((vector, i) => vector.every((value, j) => Math.abs(value - expected[i]![j]!) < 1e-12)), "the endpoint's vectors")
  t.match(lines.join(''), /requests from the main thread/)
  t.notMatch(lines.join(''), /worker threads/)
  server.script(() => ({ status: 429, retryAfter: '3' }))
  await t.rejects(embedder!.embed(['three']), { name: 'EmbeddingsUnavailable', retryAfterMs: 3000 }, "the plugin's failure comes through as it is")
})

t.test("a plugin's wrong answers are caught before they reach the database", async (t) => {
  const answering = (answer: number[][]): EmbeddingsPlugin => ({ model: 'acme:broken', embed: async () => answer })
  const unit = embedText('x')
  const cases: Array<[number[][], RegExp]> = [
    [[unit], /answered 1 vectors for 2 texts/],
    [[unit, unit.slice(0, 100)], /a vector of 100 numbers/],
    [[unit, unit.map((value) => value * 2)], /not of unit length/],
    [[unit, unit.map(() => Number.NaN)], /not of unit length/],
  ]
  for (const [answer, message] of cases) {
    const error = await mainThreadEmbedder(answering(answer))
      .embed(['a', 'b'])
      .catch((failure: Error) => failure)
    t.type(error, EmbeddingsUnavailable)
    t.match((error as Error).message, message)
  }
})

t.test('the pool works from the compiled tree svc runs (bin/compile.js), where worker.ts is compiled to worker.js', async (t) => {
  const tree = execFileSync(process.execPath, [join(ROOT, 'bin/compile.js')], { encoding: 'utf8' }).trim()
  const dir = mkdtempSync(join(tmpdir(), 'svc-embeddings-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const script = join(dir, 'embed.mjs')
  const compiled = (path: string): string => pathToFileURL(join(tree, path)).href
  writeFileSync(
    script,
    [
      `import { createEmbedder } from ${JSON.stringify(compiled('services/matcher/embeddings/index.js'))}`,
      `import { loadConfig } from ${JSON.stringify(compiled('shared/config/index.js'))}`,
      `import { createLogger } from ${JSON.stringify(compiled('shared/log.js'))}`,
      "const embedder = await createEmbedder(loadConfig({ SVC_EMBEDDINGS_POOL_THREADS: '2' }), createLogger('silent'))",
      'const texts = JSON.parse(process.argv[2])',
      'process.stdout.write(JSON.stringify({ model: embedder.model, vectors: await embedder.embed(texts) }))',
      'await embedder.close()',
    ].join('\n'),
  )
  // Plain node, no tsx: only compiled JavaScript can run.
  const out = execFileSync(process.execPath, [script, JSON.stringify(texts)], { encoding: 'utf8', cwd: dir, env: { PATH: process.env.PATH ?? '' } })
  const answer = JSON.parse(out) as { model: string; vectors: number[][] }
  t.equal(answer.model, 'local:hashed-ngrams-v1')
  t.same(answer.vectors, texts.map(embedText), 'the same vectors as the sources compute')
})
