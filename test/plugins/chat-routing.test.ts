// The chat router the loader builds (plugins.chat), end to end: a Slack webhook URL reaches a
// Slack-like receiver in Slack's shape, a Discord URL a Discord stand-in in Discord's shape, and any
// other URL the plugin SVC_CHAT_PLUGIN names. The tools' real host names are resolved to 127.0.0.1
// for this process (as /etc/hosts would), so routing is by the very URLs people paste.
import dns from 'node:dns'
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { capturingLogger } from '../../plugins/conformance/leaks.js'
import { loadConfig } from '../../shared/config/index.js'
import { createGuardedFetch } from '../../shared/net/guarded-fetch.js'
import { createChatRouter } from '../../shared/plugins/chat-router.js'
import { checkPluginModule, instantiatePlugin, loadConfiguredPlugins, loadPlugin } from '../../shared/plugins/loader.js'
import type { PluginModule } from '../../shared/plugins/types.js'
import { startChatLoopback } from '../helpers/loopback/chat-loopback.js'
import { startDiscordLoopback } from '../helpers/loopback/discord-loopback.js'
import { startSignedWebhookLoopback } from '../helpers/loopback/signed-webhook-loopback.js'

const TOOL_HOSTS = new Set(['hooks.slack.com', 'discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com'])
const realLookup = dns.lookup
// Only the chat tools' names; everything else resolves as usual. Restored when the file ends.
dns.lookup = ((hostname: string, ...rest: unknown[]) => (realLookup as (...args: unknown[]) => void)(TOOL_HOSTS.has(hostname) ? '127.0.0.1' : hostname, ...rest)) as typeof dns.lookup
t.teardown(() => {
  dns.lookup = realLookup
})

const secret = `whsec_${randomBytes(32).toString('base64')}`
const slack = await startChatLoopback()
const discord = await startDiscordLoopback()
const signed = await startSignedWebhookLoopback(secret)
t.teardown(() => Promise.all([slack.close(), discord.close(), signed.close()]))

/** The receiver's webhook URL under the tool's own host name (the port stays the receiver's). */
const onHost = (url: string, host: string): string => url.replace('127.0.0.1', host)
const slackBodiesAt = (url: string): unknown[] => slack.received.filter((p) => p.path === new URL(url).pathname).map((p) => p.body)
const discordBodiesAt = (url: string): unknown[] => discord.received.filter((p) => p.path === new URL(url).pathname).map((p) => p.body)

t.test('by default: Slack URLs in Slack\'s shape, Discord URLs in Discord\'s, any other URL through chat-slack', async (t) => {
  const { chat } = await loadConfiguredPlugins(loadConfig({ SVC_ALLOW_PRIVATE_WEBHOOKS: '1' }), capturingLogger().log)
  const slackUrl = onHost(slack.webhook('ok'), 'hooks.slack.com')
  t.same(await chat.send(slackUrl, { text: 'to slack' }), { ok: true })
  t.same(slackBodiesAt(slackUrl), [{ text: 'to slack' }], 'Slack\'s { text }')
  for (const host of ['discord.com', 'canary.discord.com']) {
    const discordUrl = onHost(discord.webhook('ok'), host)
    t.same(await chat.send(discordUrl, { text: `to ${host}` }), { ok: true })
    t.same(discordBodiesAt(discordUrl), [{ content: `to ${host}`, allowed_mentions: { parse: [] } }], `Discord's { content, allowed_mentions } at ${host}`)
  }
  const other = slack.webhook('ok')
  t.same(await chat.send(other, { text: 'to the fallback' }), { ok: true })
  t.same(slackBodiesAt(other), [{ text: 'to the fallback' }], 'an address of no known tool goes to SVC_CHAT_PLUGIN\'s plugin, chat-slack by default')
})

t.test('SVC_CHAT_PLUGIN=chat-webhook signs other URLs, while Slack and Discord URLs keep their plugins', async (t) => {
  const env = { SVC_ALLOW_PRIVATE_WEBHOOKS: '1', SVC_CHAT_PLUGIN: 'chat-webhook', SVC_CHAT_WEBHOOK_SECRET: secret }
  const { chat } = await loadConfiguredPlugins(loadConfig(env), capturingLogger().log)
  const receiver = signed.webhook('ok')
  t.same(await chat.send(receiver, { text: 'to any tool' }), { ok: true })
  t.same(signed.textsPostedTo(receiver), ['to any tool'], 'verified with the secret and taken')
  const slackUrl = onHost(slack.webhook('ok'), 'hooks.slack.com')
  t.same(await chat.send(slackUrl, { text: 'still slack' }), { ok: true })
  t.same(slackBodiesAt(slackUrl), [{ text: 'still slack' }])
  const discordUrl = onHost(discord.webhook('ok'), 'discordapp.com')
  t.same(await chat.send(discordUrl, { text: 'still discord' }), { ok: true })
  t.same(discordBodiesAt(discordUrl), [{ content: 'still discord', allowed_mentions: { parse: [] } }])
  t.equal(signed.received.length, 1, 'nothing routed to a tool reached the signed receiver')
})

t.test('a Discord URL answered as a deleted webhook is rejected through the router, as the digester needs', async (t) => {
  const { chat } = await loadConfiguredPlugins(loadConfig({ SVC_ALLOW_PRIVATE_WEBHOOKS: '1' }), capturingLogger().log)
  const gone = onHost(discord.webhook('unknown_webhook'), 'discord.com')
  t.match(await chat.send(gone, { text: 'x' }), { ok: false, rejected: true, error: /Discord does not know this webhook/ })
})

t.test('a third-party plugin as the fallback serves every URL but Slack\'s and Discord\'s', async (t) => {
  // A stranger's plugin as plugins/README.md shows one: { content, username } to any URL.
  const stranger: PluginModule<'chat'> = {
    manifest: { name: 'chat-example', kind: 'chat', version: '0.1.0', configSchema: { type: 'object', additionalProperties: false } },
    create() {
      const fetch = createGuardedFetch({ allowPrivate: true, requireHttps: false, timeoutMs: 10_000, maxResponseBytes: 65_536 })
      return {
        async send(webhookUrl, { text }) {
          const response = await fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: text, username: 'svc' }) })
          return response.ok ? { ok: true } : { ok: false, error: `the webhook answered ${response.status}` }
        },
      }
    },
  }
  const { log } = capturingLogger()
  const fallback = await instantiatePlugin(checkPluginModule('chat', 'chat-example', stranger, false), 'chat', {}, { log })
  const routed = new Map([
    ['chat-slack', await loadPlugin('chat', 'chat-slack', { allowPrivateAddresses: true }, { log })],
    ['chat-discord', await loadPlugin('chat', 'chat-discord', { allowPrivateAddresses: true }, { log })],
  ])
  const chat = createChatRouter(routed, fallback)
  const other = slack.webhook('ok')
  t.same(await chat.send(other, { text: 'to the stranger' }), { ok: true })
  t.same(slackBodiesAt(other), [{ content: 'to the stranger', username: 'svc' }], 'the stranger\'s shape')
  const slackUrl = onHost(slack.webhook('ok'), 'hooks.slack.com')
  t.same(await chat.send(slackUrl, { text: 'slack' }), { ok: true })
  t.same(slackBodiesAt(slackUrl), [{ text: 'slack' }], 'a Slack URL still goes to chat-slack')
})
