// The plugin loader: by name, never by path; manifest and settings checked before create(); every
// failure a PluginError that says what to change.
import t from 'tap'
import { capturingLogger } from '../../plugins/conformance/leaks.js'
import { BUILT_IN_PLUGINS, builtInPluginUrl } from '../../shared/plugins/built-ins.js'
import { checkPluginModule, importPluginModule, instantiatePlugin, loadPlugin } from '../../shared/plugins/loader.js'
import { PluginError } from '../../shared/plugins/plugin-error.js'
import type { PluginModule } from '../../shared/plugins/types.js'

const context = { log: capturingLogger().log }

/** A stranger's chat plugin, written inline: it answers with the settings it was given. */
const echo = (overrides: Record<string, unknown> = {}) =>
  ({
    manifest: {
      name: 'chat-echo',
      kind: 'chat',
      version: '0.1.0',
      configSchema: { type: 'object', properties: { channel: { type: 'string', default: 'general' }, token: { type: 'string' } }, additionalProperties: false },
      ...overrides,
    },
    create: (settings: Record<string, unknown>) => ({ send: async () => ({ ok: true }), settings }),
  }) as unknown as PluginModule<'chat'>

t.test('built-ins resolve to plugins/<name>/index beside the sources', async (t) => {
  t.same(BUILT_IN_PLUGINS, ['codehost-github', 'chat-slack', 'chat-discord', 'chat-webhook', 'objectstore-fs', 'objectstore-s3', 'model-anthropic', 'model-openai', 'sandbox-local', 'embeddings-openai', 'embeddings-local'])
  t.match(builtInPluginUrl('chat-slack')?.pathname, /\/plugins\/chat-slack\/index\.ts$/)
  t.equal(builtInPluginUrl('lodash'), undefined, 'any other name is an npm package')
  const chat = await loadPlugin('chat', 'chat-slack', {}, context)
  t.type(chat.send, 'function')
})

t.test('refuses paths, URLs and node: modules: plugins load by name only', async (t) => {
  for (const name of ['./plugins/chat-slack/index.ts', '/etc/passwd', '../x', 'file:///tmp/x.js', 'node:fs', 'data:text/javascript,export default 1', '@scope/../x', 'C:\\x']) {
    const error = await t.rejects(importPluginModule('chat', name), name)
    t.type(error, PluginError)
    t.match((error as Error).message, /never by path/)
  }
})

t.test('a package that is not installed is named with the command that installs it', async (t) => {
  const error = await t.rejects(importPluginModule('chat', '@svc-test/no-such-chat-plugin'))
  t.match((error as Error).message, /Plugin @svc-test\/no-such-chat-plugin \(chat\): .*no npm package of that name is installed\. Run npm install @svc-test\/no-such-chat-plugin/)
})

t.test('an installed package that is not a plugin is refused with what a plugin exports', async (t) => {
  const error = await t.rejects(importPluginModule('chat', 'ajv'))
  t.match((error as Error).message, /ajv \(chat\): is not a valid plugin: .*plugins\/README\.md/)
})

t.test('a plugin of another kind is refused', async (t) => {
  const error = await t.rejects(importPluginModule('codehost', 'chat-slack'))
  t.match((error as Error).message, /is a chat plugin, not a codehost plugin/)
})

t.test('checks every part of the manifest', async (t) => {
  const cases: Array<[unknown, RegExp]> = [
    [undefined, /no default export object/],
    [{ create() {} }, /has no manifest/],
    [echo({ name: 'Chat Echo' }), /manifest\.name must be a lower-case name/],
    [echo({ version: 'latest' }), /manifest\.version must be a version string/],
    [echo({ configSchema: 'none' }), /configSchema must be a JSON schema object/],
    [echo({ configSchema: { type: 'nonsense' } }), /configSchema is not a valid JSON schema/],
    [{ manifest: echo().manifest, create: 'no' }, /create must be a function/],
  ]
  for (const [exported, message] of cases) t.throws(() => checkPluginModule('chat', 'chat-echo', exported, false), message)
  t.throws(() => checkPluginModule('chat', 'chat-slack', echo(), true), /manifest\.name is "chat-echo", not "chat-slack"/, 'a built-in carries its registered name')
  t.equal(checkPluginModule('chat', 'any-package-name', echo(), false).manifest.name, 'chat-echo', 'a package may name its plugin differently')
})

t.test('settings are validated, defaulted and frozen before create()', async (t) => {
  const made = (await instantiatePlugin(echo(), 'chat', { token: 'xoxb-secret-value' }, context)) as unknown as { settings: Record<string, unknown> }
  t.same(made.settings, { channel: 'general', token: 'xoxb-secret-value' }, 'the schema default was applied')
  t.ok(Object.isFrozen(made.settings))
  const given = { token: 'x' }
  await instantiatePlugin(echo(), 'chat', given, context)
  t.same(given, { token: 'x' }, "the caller's object is not changed")
  const bad = await t.rejects(instantiatePlugin(echo(), 'chat', { token: 42, extra: 'xoxb-secret-value' }, context, { settingSources: { token: 'ECHO_TOKEN' } }))
  t.match((bad as Error).message, /^Plugin chat-echo \(chat\): has bad settings: .*Fix them and start again\.$/)
  t.match((bad as Error).message, /"token" \(set by ECHO_TOKEN\) must be string/)
  t.match((bad as Error).message, /"extra" is not a setting of this plugin; remove it/)
  t.notMatch((bad as Error).message, /xoxb-secret-value/, 'values are never repeated')
})

t.test('a factory that throws or returns nothing is reported as the plugin failing to start', async (t) => {
  const throwing = { ...echo(), create: () => Promise.reject(new Error('cannot reach license server')) } as unknown as PluginModule<'chat'>
  await t.rejects(instantiatePlugin(throwing, 'chat', {}, context), /chat-echo \(chat\): could not start: cannot reach license server/)
  const empty = { ...echo(), create: () => null } as unknown as PluginModule<'chat'>
  await t.rejects(instantiatePlugin(empty, 'chat', {}, context), /create\(\) returned no plugin object/)
})
