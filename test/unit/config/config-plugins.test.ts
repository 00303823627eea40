// Plugin selection and settings in shared/config/index.ts, and loadConfiguredPlugins on top of them.
import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { capturingLogger } from '../../../plugins/conformance/leaks.js'
import { ConfigError, loadConfig } from '../../../shared/config/index.js'
import { loadConfiguredPlugins, loadModelPlugin, loadSandboxPlugin } from '../../../shared/plugins/loader.js'
import { PluginError } from '../../../shared/plugins/plugin-error.js'

const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }) as string
const app = { CODEHOST_APP_ID: '12345', CODEHOST_APP_PRIVATE_KEY: pem, CODEHOST_APP_SLUG: 'svc-monitor' }

t.test('by default: chat-slack with private webhooks refused, and no code host', async (t) => {
  const { plugins } = loadConfig({})
  t.equal(plugins.codehost, undefined, 'no CODEHOST_APP_ID, no codehost plugin')
  t.same(plugins.chat, { name: 'chat-slack', settings: { allowPrivateAddresses: false } })
  t.ok(Object.isFrozen(plugins.chat.settings), 'frozen with the rest')
})

t.test('SVC_ALLOW_PRIVATE_WEBHOOKS is 0 or 1', async (t) => {
  t.equal(loadConfig({ SVC_ALLOW_PRIVATE_WEBHOOKS: '1' }).plugins.chat.settings.allowPrivateAddresses, true)
  t.equal(loadConfig({ SVC_ALLOW_PRIVATE_WEBHOOKS: '0' }).plugins.chat.settings.allowPrivateAddresses, false)
  const error = t.throws(() => loadConfig({ SVC_ALLOW_PRIVATE_WEBHOOKS: 'yes' })) as ConfigError
  t.equal(error.variable, 'SVC_ALLOW_PRIVATE_WEBHOOKS')
  t.match(error.message, /must be 0 or 1/)
})

t.test('a configured app becomes codehost settings, with optional addresses and sign-in', async (t) => {
  const { plugins } = loadConfig({
    ...app,
    CODEHOST_API_URL: 'https://ghe.example.com/api/v3/',
    CODEHOST_WEB_URL: 'https://ghe.example.com',
    CODEHOST_APP_CLIENT_ID: 'Iv1.abc',
    CODEHOST_APP_CLIENT_SECRET: 'shh',
    SVC_CODEHOST_PLUGIN: '@acme/svc-codehost-gitea',
  })
  t.same(plugins.codehost, {
    name: '@acme/svc-codehost-gitea',
    settings: { appId: '12345', privateKey: pem, appSlug: 'svc-monitor', apiUrl: 'https://ghe.example.com/api/v3', webUrl: 'https://ghe.example.com', clientId: 'Iv1.abc', clientSecret: 'shh' },
  })
  const minimal = loadConfig(app).plugins.codehost
  t.same(Object.keys(minimal?.settings ?? {}), ['appId', 'privateKey', 'appSlug'], "unset addresses are left to the plugin's defaults")
  t.equal(minimal?.name, 'codehost-github')
})

t.test('the private key may be one line with \\n escapes, or a file', async (t) => {
  const escaped = loadConfig({ ...app, CODEHOST_APP_PRIVATE_KEY: pem.trim().replaceAll('\n', '\\n') })
  t.equal(escaped.plugins.codehost?.settings.privateKey, pem)
  const dir = mkdtempSync(join(tmpdir(), 'svc-key-'))
  writeFileSync(join(dir, 'app.pem'), pem)
  const fromFile = loadConfig({ CODEHOST_APP_ID: '1', CODEHOST_APP_SLUG: 's', CODEHOST_APP_PRIVATE_KEY_FILE: join(dir, 'app.pem') })
  t.equal(fromFile.plugins.codehost?.settings.privateKey, pem)
  const missing = t.throws(() => loadConfig({ CODEHOST_APP_ID: '1', CODEHOST_APP_SLUG: 's', CODEHOST_APP_PRIVATE_KEY_FILE: join(dir, 'nope.pem') })) as ConfigError
  t.equal(missing.variable, 'CODEHOST_APP_PRIVATE_KEY_FILE')
  t.match(missing.message, /cannot be read \(ENOENT\)/)
})

t.test('a half-configured app stops start-up naming what is missing, never showing the key', async (t) => {
  const cases: Array<[Record<string, string>, string, RegExp]> = [
    [{ CODEHOST_APP_ID: '1', CODEHOST_APP_SLUG: 's' }, 'CODEHOST_APP_PRIVATE_KEY', /required when CODEHOST_APP_ID is set/],
    [{ CODEHOST_APP_ID: '1', CODEHOST_APP_PRIVATE_KEY: pem }, 'CODEHOST_APP_SLUG', /required when CODEHOST_APP_ID is set/],
    [{ CODEHOST_APP_PRIVATE_KEY: pem }, 'CODEHOST_APP_PRIVATE_KEY', /CODEHOST_APP_ID is not/],
    [{ ...app, CODEHOST_APP_PRIVATE_KEY_FILE: '/x.pem' }, 'CODEHOST_APP_PRIVATE_KEY_FILE', /Keep one of them/],
    [{ ...app, CODEHOST_APP_PRIVATE_KEY: 'ghp_notakeyatall123' }, 'CODEHOST_APP_PRIVATE_KEY', /does not hold a PEM private key.*the value is not shown/],
    [{ ...app, CODEHOST_API_URL: 'api.github.com' }, 'CODEHOST_API_URL', /http\(s\) URL/],
    [{ SVC_CHAT_PLUGIN: './my-chat.js' }, 'SVC_CHAT_PLUGIN', /never loaded by path/],
    [{ SVC_CODEHOST_PLUGIN: '../x' }, 'SVC_CODEHOST_PLUGIN', /never loaded by path/],
  ]
  for (const [env, variable, message] of cases) {
    const error = t.throws(() => loadConfig(env)) as ConfigError
    t.equal(error.variable, variable, `${variable} is named`)
    t.match(error.message, message)
    t.notMatch(error.message, /ghp_notakeyatall123|BEGIN RSA PRIVATE KEY-----\n/, 'the value is not shown')
  }
})

t.test('loadConfiguredPlugins loads chat-slack alone when no app is configured', async (t) => {
  const { log, lines } = capturingLogger()
  const plugins = await loadConfiguredPlugins(loadConfig({}), log)
  t.equal(plugins.codehost, undefined)
  t.type(plugins.chat.send, 'function')
  t.match(lines.join(''), /"msg":"plugins loaded".*"codehost":"none \(CODEHOST_APP_ID and CODEHOST_TOKEN unset\)".*"chat":"chat-slack"/)
})

t.test('loadConfiguredPlugins loads codehost-github from a configured app', async (t) => {
  const { log, lines } = capturingLogger()
  const plugins = await loadConfiguredPlugins(loadConfig({ ...app, CODEHOST_APP_CLIENT_ID: 'Iv1.abc', CODEHOST_APP_CLIENT_SECRET: 'shh' }), log)
  t.equal(plugins.codehost?.installUrl(), 'https://github.com/apps/svc-monitor/installations/new')
  t.match(plugins.codehost?.oauth?.authorizeUrl('s', 'http://localhost:8082/cb'), /^https:\/\/github\.com\/login\/oauth\/authorize\?client_id=Iv1\.abc&/)
  t.notMatch(lines.join(''), /PRIVATE KEY|shh/, 'neither key nor secret is logged')
})

t.test('CODEHOST_TOKEN alone selects the code host for reading repositories; with an app it joins its settings', async (t) => {
  const token = 'github_pat_config_test_0123456789'
  t.same(loadConfig({ CODEHOST_TOKEN: token }).plugins.codehost, { name: 'codehost-github', settings: { token } }, 'no app: the token alone')
  const ghe = loadConfig({ CODEHOST_TOKEN: token, CODEHOST_API_URL: 'https://ghe.example.com/api/v3', CODEHOST_WEB_URL: 'https://ghe.example.com', CODEHOST_APP_CLIENT_ID: 'Iv1.abc', CODEHOST_APP_CLIENT_SECRET: 'shh' })
  t.same(ghe.plugins.codehost?.settings, { token, apiUrl: 'https://ghe.example.com/api/v3', webUrl: 'https://ghe.example.com' }, 'sign-in needs the app: its client settings are not passed')
  t.same(loadConfig({ ...app, CODEHOST_TOKEN: token }).plugins.codehost?.settings.token, token, 'with the app too')
  const { log, lines } = capturingLogger()
  const plugins = await loadConfiguredPlugins(loadConfig({ CODEHOST_TOKEN: token }), log)
  t.equal(plugins.codehost?.installUrl(), '', 'no app, no install link')
  t.equal(plugins.codehost?.oauth, undefined, 'no app, no sign-in')
  t.type(plugins.codehost?.repositories?.clone, 'function', 'repositories can be read')
  t.match(lines.join(''), /"codehost":"codehost-github"/)
  t.notMatch(lines.join(''), token, 'the token is not logged')
})

t.test('loadConfiguredPlugins names the variable that selected a bad plugin', async (t) => {
  const error = await t.rejects(loadConfiguredPlugins(loadConfig({ SVC_CHAT_PLUGIN: 'codehost-github' }), capturingLogger().log))
  t.type(error, PluginError)
  t.match((error as Error).message, /is a codehost plugin, not a chat plugin.*\(SVC_CHAT_PLUGIN selects the plugin\.\)/)
  const missing = await t.rejects(loadConfiguredPlugins(loadConfig({ SVC_CHAT_PLUGIN: '@svc-test/absent-chat' }), capturingLogger().log))
  t.match((missing as Error).message, /Run npm install @svc-test\/absent-chat.*SVC_CHAT_PLUGIN/)
})

t.test('without MODEL_API_KEY no model plugin is configured', async (t) => {
  t.equal(loadConfig({}).plugins.model, undefined)
  t.equal(loadConfig({ MODEL_API_KEY: '  ' }).plugins.model, undefined, 'a blank key counts as unset')
})

t.test('MODEL_API_KEY selects model-anthropic with the key alone, leaving the rest to the plugin', async (t) => {
  const { plugins } = loadConfig({ MODEL_API_KEY: 'sk-ant-abc' })
  t.same(plugins.model, { name: 'model-anthropic', settings: { apiKey: 'sk-ant-abc' } })
  t.ok(Object.isFrozen(plugins.model?.settings), 'frozen with the rest')
})

t.test('SVC_MODEL_PLUGIN, SVC_MODEL_NAME, SVC_MODEL_BASE_URL and SVC_MODEL_TIMEOUT_MS fill in the model settings', async (t) => {
  const { plugins } = loadConfig({
    MODEL_API_KEY: 'sk-local',
    SVC_MODEL_PLUGIN: 'model-openai',
    SVC_MODEL_NAME: 'qwen2.5-coder:14b',
    SVC_MODEL_BASE_URL: 'http://localhost:11434/v1/',
    SVC_MODEL_TIMEOUT_MS: '300000',
  })
  t.same(plugins.model, { name: 'model-openai', settings: { apiKey: 'sk-local', model: 'qwen2.5-coder:14b', baseUrl: 'http://localhost:11434/v1', timeoutMs: 300_000 } })
  t.same(Object.keys(loadConfig({ MODEL_API_KEY: 'k', SVC_MODEL_NAME: 'claude-x' }).plugins.model?.settings ?? {}), ['apiKey', 'model'])
})

t.test('a bad or stray model variable stops start-up naming it, never showing the key', async (t) => {
  const key = 'sk-ant-secret-value-987'
  const cases: Array<[Record<string, string>, string, RegExp]> = [
    [{ SVC_MODEL_NAME: 'claude-x' }, 'SVC_MODEL_NAME', /set but MODEL_API_KEY is not/],
    [{ SVC_MODEL_BASE_URL: 'http://localhost:11434/v1' }, 'SVC_MODEL_BASE_URL', /set but MODEL_API_KEY is not/],
    [{ MODEL_API_KEY: key, SVC_MODEL_BASE_URL: 'localhost:11434' }, 'SVC_MODEL_BASE_URL', /http\(s\) URL/],
    [{ MODEL_API_KEY: key, SVC_MODEL_TIMEOUT_MS: '2 minutes' }, 'SVC_MODEL_TIMEOUT_MS', /whole number from 1000 to 3600000/],
    [{ MODEL_API_KEY: key, SVC_MODEL_TIMEOUT_MS: '10' }, 'SVC_MODEL_TIMEOUT_MS', /whole number from 1000/],
    [{ MODEL_API_KEY: key, SVC_MODEL_PLUGIN: './my-model.js' }, 'SVC_MODEL_PLUGIN', /never loaded by path/],
  ]
  for (const [env, variable, message] of cases) {
    const error = t.throws(() => loadConfig(env)) as ConfigError
    t.equal(error.variable, variable, `${variable} is named`)
    t.match(error.message, message)
    t.notMatch(error.message, new RegExp(key), 'the key is not shown')
  }
})

t.test('loadModelPlugin answers undefined without MODEL_API_KEY, and loads the selected plugin with it', async (t) => {
  const none = capturingLogger()
  t.equal(await loadModelPlugin(loadConfig({}), none.log), undefined)
  t.match(none.lines.join(''), /model plugin: none \(MODEL_API_KEY unset\)/)
  const { log, lines } = capturingLogger()
  const anthropic = await loadModelPlugin(loadConfig({ MODEL_API_KEY: 'sk-ant-not-logged-1' }), log)
  t.equal(anthropic?.label, 'anthropic/claude-sonnet-4-5', "the plugin's default model")
  const openai = await loadModelPlugin(loadConfig({ MODEL_API_KEY: 'sk-not-logged-2', SVC_MODEL_PLUGIN: 'model-openai' }), log)
  t.equal(openai?.label, 'openai/gpt-4.1')
  t.type(openai?.complete, 'function')
  t.notMatch(lines.join(''), /not-logged/, 'no key is logged')
})

t.test('loadModelPlugin names SVC_MODEL_PLUGIN when it selects something that is not a model plugin', async (t) => {
  const error = await t.rejects(loadModelPlugin(loadConfig({ MODEL_API_KEY: 'k', SVC_MODEL_PLUGIN: 'chat-slack' }), capturingLogger().log))
  t.type(error, PluginError)
  t.match((error as Error).message, /is a chat plugin, not a model plugin.*\(SVC_MODEL_PLUGIN selects the plugin\.\)/)
  const missing = await t.rejects(loadModelPlugin(loadConfig({ MODEL_API_KEY: 'k', SVC_MODEL_PLUGIN: '@svc-test/absent-model' }), capturingLogger().log))
  t.match((missing as Error).message, /Run npm install @svc-test\/absent-model.*SVC_MODEL_PLUGIN/)
})

t.test('a model setting the plugin refuses is reported with the variable that sets it', async (t) => {
  const plugins = { codehost: undefined, chat: { name: 'chat-slack', settings: {} }, chatRouted: [], model: { name: 'model-openai', settings: { apiKey: 'k', timeoutMs: 0 } }, sandbox: { name: 'sandbox-local', settings: {} } }
  const error = await t.rejects(loadModelPlugin({ plugins }, capturingLogger().log))
  t.match((error as Error).message, /"timeoutMs" \(set by SVC_MODEL_TIMEOUT_MS\) must be >= 1/)
})

t.test('the sandbox plugin is sandbox-local by default, with its limits from SVC_SANDBOX_*', async (t) => {
  t.same(loadConfig({}).plugins.sandbox, { name: 'sandbox-local', settings: { requireIsolation: false } }, "unset limits are left to the plugin's defaults")
  const limited = loadConfig({ SVC_SANDBOX_REQUIRE_ISOLATION: '1', SVC_SANDBOX_CPU_SECONDS: '120', SVC_SANDBOX_MEMORY_MB: '1024', SVC_SANDBOX_MAX_PROCESSES: '64' })
  t.same(limited.plugins.sandbox.settings, { requireIsolation: true, cpuSeconds: 120, memoryMb: 1024, maxProcesses: 64 })
  const small = t.throws(() => loadConfig({ SVC_SANDBOX_MEMORY_MB: '8' })) as ConfigError
  t.equal(small.variable, 'SVC_SANDBOX_MEMORY_MB')
})

t.test('another sandbox plugin gets SANDBOX_API_KEY as apiKey, and refuses sandbox-local variables', async (t) => {
  t.same(loadConfig({ SVC_SANDBOX_PLUGIN: '@acme/svc-sandbox-cloud', SANDBOX_API_KEY: 'sbx-secret' }).plugins.sandbox, { name: '@acme/svc-sandbox-cloud', settings: { apiKey: 'sbx-secret' } })
  t.same(loadConfig({ SVC_SANDBOX_PLUGIN: '@acme/svc-sandbox-cloud' }).plugins.sandbox.settings, {})
  const stray = t.throws(() => loadConfig({ SVC_SANDBOX_PLUGIN: '@acme/svc-sandbox-cloud', SVC_SANDBOX_MEMORY_MB: '512' })) as ConfigError
  t.equal(stray.variable, 'SVC_SANDBOX_MEMORY_MB')
  t.match(stray.message, /read by sandbox-local only/)
})

t.test('loadSandboxPlugin always loads one, and names SVC_SANDBOX_PLUGIN when it selects something else', async (t) => {
  const { log, lines } = capturingLogger()
  const local = await loadSandboxPlugin(loadConfig({}), log)
  t.match(local.label, /^local \(/)
  t.type(local.create, 'function')
  t.match(lines.join(''), /sandbox plugin loaded/)
  const wrong = await t.rejects(loadSandboxPlugin(loadConfig({ SVC_SANDBOX_PLUGIN: 'chat-slack' }), capturingLogger().log))
  t.match((wrong as Error).message, /is a chat plugin, not a sandbox plugin.*\(SVC_SANDBOX_PLUGIN selects the plugin\.\)/)
  const missing = await t.rejects(loadSandboxPlugin(loadConfig({ SVC_SANDBOX_PLUGIN: '@svc-test/absent-sandbox', SANDBOX_API_KEY: 'sbx-not-shown' }), capturingLogger().log))
  t.match((missing as Error).message, /Run npm install @svc-test\/absent-sandbox.*SVC_SANDBOX_PLUGIN/)
  t.notMatch((missing as Error).message, /sbx-not-shown/)
})
