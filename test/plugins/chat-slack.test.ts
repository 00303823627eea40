// chat-slack through the loader, against a Slack-like receiver on 127.0.0.1: the chat conformance
// suite, plus what is particular to Slack's answers.
import t from 'tap'
import { chatConformance } from '../../plugins/conformance/chat.js'
import { capturingLogger } from '../../plugins/conformance/leaks.js'
import { importPluginModule, loadPlugin } from '../../shared/plugins/loader.js'
import { PluginError } from '../../shared/plugins/plugin-error.js'
import { closedOrigin } from '../helpers/loopback/github-loopback.js'
import { startChatLoopback } from '../helpers/loopback/chat-loopback.js'

const receiver = await startChatLoopback()
t.teardown(() => receiver.close())

const textsPostedTo = (url: string): string[] =>
  receiver.received.filter((post) => post.path === new URL(url).pathname).map((post) => String((post.body as { text?: unknown }).text))

t.test('chat-slack passes the chat conformance suite', async (t) => {
  const module = await importPluginModule('chat', 'chat-slack')
  await chatConformance(t, module, {
    settings: ({ allowPrivate }) => ({ allowPrivateAddresses: allowPrivate }),
    acceptingWebhook: () => receiver.webhook('ok'),
    rejectingWebhooks: () => [receiver.webhook('invalid_token'), receiver.webhook('no_service')],
    redirectingWebhook: (target) => receiver.webhook({ redirectTo: target }),
    textsPostedTo,
    unreachableWebhook: async () => `${await closedOrigin()}/services/T0000000001/B0000000001/closedportsecret123`,
  })
})

t.test('posts Slack JSON and says which Slack code refused a webhook', async (t) => {
  const { log } = capturingLogger()
  const chat = await loadPlugin('chat', 'chat-slack', { allowPrivateAddresses: true }, { log })
  const good = receiver.webhook('ok')
  t.same(await chat.send(good, { text: 'hello' }), { ok: true })
  const post = receiver.received.find((p) => p.path === new URL(good).pathname)
  t.equal(post?.contentType, 'application/json', 'sent as JSON')
  t.same(post?.body, { text: 'hello' })
  const revoked = await chat.send(receiver.webhook('invalid_token'), { text: 'x' })
  t.match(revoked, { ok: false, error: /403 invalid_token.*new incoming webhook/ })
  const gone = await chat.send(receiver.webhook('no_service'), { text: 'x' })
  t.match(gone, { ok: false, error: /404 no_service/ })
  const down = await chat.send(receiver.webhook('server_error'), { text: 'x' })
  t.match(down, { ok: false, error: /500 .*try again/i })
})

t.test('a refused private address names the development setting that allows it', async (t) => {
  const chat = await loadPlugin('chat', 'chat-slack', {}, { log: capturingLogger().log })
  const result = await chat.send('https://192.168.1.10/services/T1/B1/abcdefsecret', { text: 'x' })
  t.match(result, { ok: false, error: /private network.*SVC_ALLOW_PRIVATE_WEBHOOKS=1/ })
  const plain = await chat.send('http://hooks.slack.com/services/T1/B1/abcdefsecret', { text: 'x' })
  t.match(plain, { ok: false, error: /must start with https:\/\// }, 'plain http is refused before any connection')
})

t.test('the loader refuses a setting chat-slack does not have, naming it', async (t) => {
  const error = await t.rejects(loadPlugin('chat', 'chat-slack', { allowPrivateAddresses: 'yes' }, { log: capturingLogger().log }))
  t.type(error, PluginError)
  t.match((error as Error).message, /"allowPrivateAddresses" must be boolean/)
})
