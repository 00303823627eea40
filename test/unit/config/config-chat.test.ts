// The chat plugins shared/config chooses: the routed built-ins, the fallback SVC_CHAT_PLUGIN
// names, and chat-webhook's secret (SVC_CHAT_WEBHOOK_SECRET).
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { capturingLogger } from '../../../plugins/conformance/leaks.js'
import { ConfigError, loadConfig } from '../../../shared/config/index.js'
import { loadConfiguredPlugins } from '../../../shared/plugins/loader.js'

const secret = `whsec_${randomBytes(32).toString('base64')}`

t.test('by default chat-slack serves other URLs, and chat-slack and chat-discord are routed, with the private-address setting', async (t) => {
  const { plugins } = loadConfig({ SVC_ALLOW_PRIVATE_WEBHOOKS: '1' })
  t.same(plugins.chat, { name: 'chat-slack', settings: { allowPrivateAddresses: true } })
  t.same(plugins.chatRouted, [
    { name: 'chat-slack', settings: { allowPrivateAddresses: true } },
    { name: 'chat-discord', settings: { allowPrivateAddresses: true } },
  ])
})

t.test('SVC_CHAT_PLUGIN=chat-webhook takes its secret from SVC_CHAT_WEBHOOK_SECRET', async (t) => {
  const { plugins } = loadConfig({ SVC_CHAT_PLUGIN: 'chat-webhook', SVC_CHAT_WEBHOOK_SECRET: secret })
  t.same(plugins.chat, { name: 'chat-webhook', settings: { allowPrivateAddresses: false, secret } })
  const { log, lines } = capturingLogger()
  const loaded = await loadConfiguredPlugins(loadConfig({ SVC_CHAT_PLUGIN: 'chat-webhook', SVC_CHAT_WEBHOOK_SECRET: secret }), log)
  t.type(loaded.chat.send, 'function')
  t.match(lines.join(''), /"chat":"chat-webhook".*"chatRoutes":"hooks\.slack\.com to chat-slack, discord\.com to chat-discord, any other URL to chat-webhook"/)
  t.notMatch(lines.join(''), secret.slice(6), 'the secret is not logged')
})

t.test('chat-webhook without a secret stops start-up, saying how to make one', async (t) => {
  const error = t.throws(() => loadConfig({ SVC_CHAT_PLUGIN: 'chat-webhook' })) as ConfigError
  t.equal(error.variable, 'SVC_CHAT_WEBHOOK_SECRET')
  t.match(error.message, /is required when SVC_CHAT_PLUGIN is chat-webhook.*openssl rand -base64 32/)
})

t.test('a malformed secret stops start-up without repeating it', async (t) => {
  for (const bad of ['hunter2hunter2hunter2hunter2', 'whsec_***', `whsec_${randomBytes(16).toString('base64')}`, `whsec_${randomBytes(65).toString('base64')}`]) {
    const error = t.throws(() => loadConfig({ SVC_CHAT_PLUGIN: 'chat-webhook', SVC_CHAT_WEBHOOK_SECRET: bad })) as ConfigError
    t.equal(error.variable, 'SVC_CHAT_WEBHOOK_SECRET')
    t.match(error.message, /whsec_|bytes.*openssl rand -base64 32/)
    t.notMatch(error.message, bad, 'the value is not shown')
  }
})

t.test('a secret for another plugin is a mistake, reported', async (t) => {
  const error = t.throws(() => loadConfig({ SVC_CHAT_WEBHOOK_SECRET: secret })) as ConfigError
  t.equal(error.variable, 'SVC_CHAT_WEBHOOK_SECRET')
  t.match(error.message, /read by chat-webhook only, but SVC_CHAT_PLUGIN is chat-slack.*SVC_CHAT_PLUGIN=chat-webhook/)
})
