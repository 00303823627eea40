// Plugin selection and settings in shared/config.ts, and loadConfiguredPlugins on top of them.
import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { capturingLogger } from '../../plugins/conformance/leaks.js'
import { ConfigError, loadConfig } from '../../shared/config.js'
import { loadConfiguredPlugins } from '../../shared/plugins/loader.js'
import { PluginError } from '../../shared/plugins/plugin-error.js'

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
  t.match(lines.join(''), /"msg":"plugins loaded".*"codehost":"none \(CODEHOST_APP_ID unset\)".*"chat":"chat-slack"/)
})

t.test('loadConfiguredPlugins loads codehost-github from a configured app', async (t) => {
  const { log, lines } = capturingLogger()
  const plugins = await loadConfiguredPlugins(loadConfig({ ...app, CODEHOST_APP_CLIENT_ID: 'Iv1.abc', CODEHOST_APP_CLIENT_SECRET: 'shh' }), log)
  t.equal(plugins.codehost?.installUrl(), 'https://github.com/apps/svc-monitor/installations/new')
  t.match(plugins.codehost?.oauth?.authorizeUrl('s', 'http://localhost:8082/cb'), /^https:\/\/github\.com\/login\/oauth\/authorize\?client_id=Iv1\.abc&/)
  t.notMatch(lines.join(''), /PRIVATE KEY|shh/, 'neither key nor secret is logged')
})

t.test('loadConfiguredPlugins names the variable that selected a bad plugin', async (t) => {
  const error = await t.rejects(loadConfiguredPlugins(loadConfig({ SVC_CHAT_PLUGIN: 'codehost-github' }), capturingLogger().log))
  t.type(error, PluginError)
  t.match((error as Error).message, /is a codehost plugin, not a chat plugin.*\(SVC_CHAT_PLUGIN selects the plugin\.\)/)
  const missing = await t.rejects(loadConfiguredPlugins(loadConfig({ SVC_CHAT_PLUGIN: '@svc-test/absent-chat' }), capturingLogger().log))
  t.match((missing as Error).message, /Run npm install @svc-test\/absent-chat.*SVC_CHAT_PLUGIN/)
})
