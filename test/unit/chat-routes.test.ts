// Which plugin a webhook URL goes to (shared/config/chat-routes.ts): pure, no network.
import t from 'tap'
import { chatRouteFor, ROUTED_CHAT_PLUGINS } from '../../shared/config/chat-routes.js'

t.test('Slack incoming-webhook URLs go to chat-slack', async (t) => {
  t.equal(chatRouteFor('https://hooks.slack.com/services/T0123/B0456/secret123'), 'chat-slack')
  t.equal(chatRouteFor('  https://HOOKS.Slack.com./services/T0123/B0456/secret123 '), 'chat-slack', 'case, a trailing dot and blanks do not matter')
  t.equal(chatRouteFor('http://hooks.slack.com/services/T0123/B0456/secret123'), 'chat-slack', 'plain http too: chat-slack refuses it with its own message')
})

t.test('Discord webhook URLs on each of its hosts go to chat-discord, with or without an API version', async (t) => {
  for (const host of ['discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com', 'Discord.COM']) {
    t.equal(chatRouteFor(`https://${host}/api/webhooks/112233445566778899/tokenABC_def`), 'chat-discord', host)
  }
  t.equal(chatRouteFor('https://discord.com/api/v10/webhooks/112233445566778899/tokenABC_def'), 'chat-discord', 'a versioned API path')
})

t.test('anything else goes to the configured plugin', async (t) => {
  for (const url of [
    'https://discord.com/channels/1/2',
    'https://discord.com/api/channels/1/messages',
    'https://evil.example/api/webhooks/1/x',
    'https://discord.com.evil.example/api/webhooks/1/x',
    'https://hooks.slack.com.evil.example/services/T/B/x',
    'https://hooks.slack.com@evil.example/services/T/B/x',
    'https://slack.com/services/T/B/x',
    'https://receiver.example.com/hooks/abc',
    'http://127.0.0.1:8080/services/T/B/x',
    'not a url',
    '',
  ]) {
    t.equal(chatRouteFor(url), undefined, url)
  }
  t.equal(chatRouteFor(42), undefined, 'a non-string is no route, not an error')
})

t.test('the routed plugins are chat-slack and chat-discord', async (t) => {
  t.same(ROUTED_CHAT_PLUGINS, ['chat-slack', 'chat-discord'])
})
