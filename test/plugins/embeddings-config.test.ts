// The embeddings settings: which plugin by default, its settings from EMBEDDINGS_*, the pool's
// threads, and the mistakes that stop start-up with a message naming the variable.
import t from 'tap'
import { loadConfig } from '../../shared/config/index.js'

t.test('without a key: embeddings-local with no settings and one pool thread', async (t) => {
  t.same(loadConfig({}).embeddings, { plugin: { name: 'embeddings-local', settings: {} }, poolThreads: 1 })
  t.equal(loadConfig({ SVC_EMBEDDINGS_POOL_THREADS: '2' }).embeddings.poolThreads, 2)
  t.throws(() => loadConfig({ SVC_EMBEDDINGS_POOL_THREADS: '0' }), { name: 'ConfigError', variable: 'SVC_EMBEDDINGS_POOL_THREADS', message: /from 1 to 64/ })
})

t.test('with EMBEDDINGS_API_KEY: embeddings-openai, with only the settings that are set', async (t) => {
  t.same(loadConfig({ EMBEDDINGS_API_KEY: 'sk-x' }).embeddings.plugin, { name: 'embeddings-openai', settings: { apiKey: 'sk-x' } })
  t.same(loadConfig({ EMBEDDINGS_API_KEY: 'sk-x', EMBEDDINGS_BASE_URL: 'http://localhost:11434/v1/', EMBEDDINGS_MODEL: 'nomic-embed-text' }).embeddings.plugin, {
    name: 'embeddings-openai',
    settings: { apiKey: 'sk-x', baseUrl: 'http://localhost:11434/v1', model: 'nomic-embed-text' },
  })
  t.throws(() => loadConfig({ EMBEDDINGS_API_KEY: 'sk-x', EMBEDDINGS_BASE_URL: 'ftp://x' }), { name: 'ConfigError', variable: 'EMBEDDINGS_BASE_URL' })
})

t.test('SVC_EMBEDDINGS_PLUGIN chooses; none turns embeddings off', async (t) => {
  t.same(loadConfig({ SVC_EMBEDDINGS_PLUGIN: 'none', EMBEDDINGS_API_KEY: 'sk-x' }).embeddings.plugin, undefined)
  t.same(loadConfig({ SVC_EMBEDDINGS_PLUGIN: 'embeddings-local' }).embeddings.plugin, { name: 'embeddings-local', settings: {} })
  t.same(loadConfig({ SVC_EMBEDDINGS_PLUGIN: '@acme/svc-embeddings', EMBEDDINGS_MODEL: 'm' }).embeddings.plugin, { name: '@acme/svc-embeddings', settings: { model: 'm' } })
  t.throws(() => loadConfig({ SVC_EMBEDDINGS_PLUGIN: '../plugins/mine' }), { variable: 'SVC_EMBEDDINGS_PLUGIN', message: /never loaded by path/ })
})

t.test('half-configured remotes stop start-up, naming the variable', async (t) => {
  t.throws(() => loadConfig({ SVC_EMBEDDINGS_PLUGIN: 'embeddings-openai' }), { variable: 'EMBEDDINGS_API_KEY', message: /required by embeddings-openai/ })
  t.throws(() => loadConfig({ EMBEDDINGS_MODEL: 'text-embedding-3-large' }), { variable: 'EMBEDDINGS_MODEL', message: /SVC_EMBEDDINGS_PLUGIN is embeddings-local/ })
  t.throws(() => loadConfig({ SVC_EMBEDDINGS_PLUGIN: 'embeddings-local', EMBEDDINGS_API_KEY: 'sk-x' }), { name: 'ConfigError', variable: 'EMBEDDINGS_API_KEY' })
})
