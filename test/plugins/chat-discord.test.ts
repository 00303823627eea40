// chat-discord through the loader, against a Discord stand-in on 127.0.0.1: the chat conformance
// suite, plus what is particular to Discord: its payload, no mentions, its answers, long texts.
import t from 'tap'
import { splitForDiscord, SHORTENED } from '../../plugins/chat-discord/split.js'
import { chatConformance } from '../../plugins/conformance/chat.js'
import { capturingLogger } from '../../plugins/conformance/leaks.js'
import { importPluginModule, loadPlugin } from '../../shared/plugins/loader.js'
import { startDiscordLoopback } from '../helpers/loopback/discord-loopback.js'
import { closedOrigin } from '../helpers/loopback/github-loopback.js'

const receiver = await startDiscordLoopback()
t.teardown(() => receiver.close())
const chat = await loadPlugin('chat', 'chat-discord', { allowPrivateAddresses: true }, { log: capturingLogger().log })

t.test('chat-discord passes the chat conformance suite', async (t) => {
  await chatConformance(t, await importPluginModule('chat', 'chat-discord'), {
    settings: ({ allowPrivate }) => ({ allowPrivateAddresses: allowPrivate }),
    acceptingWebhook: () => receiver.webhook('ok'),
    rejectingWebhooks: () => [receiver.webhook('unknown_webhook'), receiver.webhook('invalid_token'), receiver.webhook('forbidden')],
    redirectingWebhook: (target) => receiver.webhook({ redirectTo: target }),
    textsPostedTo: (url) => receiver.contentsPostedTo(url),
    unreachableWebhook: async () => `${await closedOrigin()}/api/webhooks/112233445566778899/closedPortToken123456`,
  })
})

t.test('posts Discord JSON that allows no mentions, with Slack entities turned back into characters', async (t) => {
  const url = receiver.webhook('ok')
  t.same(await chat.send(url, { text: 'Alert for `@everyone &lt;@&amp;123&gt;` &amp; <@here>' }), { ok: true })
  const post = receiver.received.find((p) => p.path === new URL(url).pathname)
  t.equal(post?.contentType, 'application/json', 'sent as JSON')
  t.same(post?.body, { content: 'Alert for `@everyone <@&123>` & <@here>', allowed_mentions: { parse: [] } }, 'content, and every mention kind turned off')
})

t.test('a text over 2,000 characters is split at paragraphs into posts Discord takes, in order', async (t) => {
  const paragraphs = Array.from({ length: 9 }, (_, i) => `• Item ${i + 1}: ${'x'.repeat(400)}`)
  const url = receiver.webhook('ok')
  t.same(await chat.send(url, { text: paragraphs.join('\n\n') }), { ok: true })
  const posts = receiver.contentsPostedTo(url)
  t.equal(posts.length, 3, 'three posts of at most 2,000 characters')
  t.ok(posts.every((post) => post.length <= 2000))
  t.same(posts.join('\n\n'), paragraphs.join('\n\n'), 'nothing lost, each cut at a paragraph boundary')
  t.ok(receiver.received.filter((p) => p.path === new URL(url).pathname).every((p) => JSON.stringify(p.body.allowed_mentions) === '{"parse":[]}'), 'every part allows no mentions')
})

t.test('a text longer than four posts is shortened in the fourth, which says so', async (t) => {
  const url = receiver.webhook('ok')
  t.same(await chat.send(url, { text: Array.from({ length: 30 }, (_, i) => `Line ${i}: ${'y'.repeat(390)}`).join('\n') }), { ok: true })
  const posts = receiver.contentsPostedTo(url)
  t.equal(posts.length, 4)
  t.ok(posts[3]!.endsWith(SHORTENED), 'the last post says it was shortened')
  t.ok(posts.every((post) => post.length <= 2000))
})

t.test('splitting prefers a line break, then a space outside inline code, and never halves an emoji', async (t) => {
  t.same(splitForDiscord('aaaa\nbbbb cccc', 10), ['aaaa', 'bbbb cccc'])
  t.same(splitForDiscord('aa bb `cc dd` ee', 12), ['aa bb', '`cc dd` ee'], 'the space inside the code span is not used')
  t.same(splitForDiscord('abcdefghij', 4, 10), ['abcd', 'efgh', 'ij'], 'a hard cut without a boundary')
  t.same(splitForDiscord('abc😀def', 4), ['abc', '😀de', 'f'], 'the surrogate pair stays whole')
  t.same(splitForDiscord('short'), ['short'])
})

t.test('Discord\'s answers: a deleted or refused webhook is rejected; a rate limit or outage is not', async (t) => {
  const unknown = await chat.send(receiver.webhook('unknown_webhook'), { text: 'x' })
  t.match(unknown, { ok: false, rejected: true, error: /does not know this webhook \(404 code 10015\).*new webhook/ })
  t.match(await chat.send(receiver.webhook('invalid_token'), { text: 'x' }), { ok: false, rejected: true, error: /401 code 50027/ })
  t.match(await chat.send(receiver.webhook('forbidden'), { text: 'x' }), { ok: false, rejected: true, error: /403/ })
  const limited = await chat.send(receiver.webhook('rate_limited'), { text: 'x' })
  t.match(limited, { ok: false, error: /rate limiting.*429.*in 2 s/ })
  t.notOk((limited as { rejected?: boolean }).rejected, 'a rate limit is not a refusal')
  const down = await chat.send(receiver.webhook('server_error'), { text: 'x' })
  t.match(down, { ok: false, error: /502.*Discord's side/ })
  t.notOk((down as { rejected?: boolean }).rejected, 'an outage is not a refusal')
  const empty = await chat.send(receiver.webhook('ok'), { text: '' })
  t.match(empty, { ok: false, error: /refused the message \(400 code 50006\)/ })
  t.notOk((empty as { rejected?: boolean }).rejected, 'a refused message is not a refused webhook')
})

t.test('a failure after the first part says how many parts Discord took', async (t) => {
  const url = receiver.webhook({ acceptFirst: 1, then: 'rate_limited' })
  const result = await chat.send(url, { text: `${'a'.repeat(1500)}\n\n${'b'.repeat(1500)}` })
  t.match(result, { ok: false, error: /^Discord took 1 of the message's 2 parts, then: Discord is rate limiting/ })
  t.equal(receiver.contentsPostedTo(url).length, 2, 'both parts were posted; the stand-in took only the first')
})

t.test('a refused private address names the development setting that allows it', async (t) => {
  const strict = await loadPlugin('chat', 'chat-discord', {}, { log: capturingLogger().log })
  t.match(await strict.send('https://192.168.1.10/api/webhooks/1234567/abcdefsecret', { text: 'x' }), { ok: false, rejected: true, error: /private network.*SVC_ALLOW_PRIVATE_WEBHOOKS=1/ })
  t.match(await strict.send('http://discord.com/api/webhooks/1234567/abcdefsecret', { text: 'x' }), { ok: false, error: /must start with https:\/\/.*as Discord shows it/ }, 'plain http is refused before any connection')
})
