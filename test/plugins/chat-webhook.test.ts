// chat-webhook through the loader, against a receiver that verifies every post with the
// standardwebhooks library: the chat conformance suite, the documented body and headers, a
// verification by hand from docs/chat-webhooks.md alone, and what a receiver must refuse.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import t from 'tap'
import { Webhook } from 'standardwebhooks'
import { chatConformance } from '../../plugins/conformance/chat.js'
import { capturingLogger } from '../../plugins/conformance/leaks.js'
import { importPluginModule, loadPlugin } from '../../shared/plugins/loader.js'
import { PluginError } from '../../shared/plugins/plugin-error.js'
import { closedOrigin } from '../helpers/loopback/github-loopback.js'
import { startSignedWebhookLoopback } from '../helpers/loopback/signed-webhook-loopback.js'

const secret = `whsec_${randomBytes(32).toString('base64')}`
const receiver = await startSignedWebhookLoopback(secret)
t.teardown(() => receiver.close())
const { log, lines } = capturingLogger()
const chat = await loadPlugin('chat', 'chat-webhook', { allowPrivateAddresses: true, secret }, { log })

t.test('chat-webhook passes the chat conformance suite', async (t) => {
  await chatConformance(t, await importPluginModule('chat', 'chat-webhook'), {
    settings: ({ allowPrivate }) => ({ allowPrivateAddresses: allowPrivate, secret }),
    acceptingWebhook: () => receiver.webhook('ok'),
    rejectingWebhooks: () => [receiver.webhook(404), receiver.webhook(410), receiver.webhook(403)],
    redirectingWebhook: (target) => receiver.webhook({ redirectTo: target }),
    textsPostedTo: (url) => receiver.textsPostedTo(url),
    unreachableWebhook: async () => `${await closedOrigin()}/hooks/closedPortSecret123456`,
  })
})

t.test('posts the documented body with the Standard Webhooks headers, and the receiver verifies it', async (t) => {
  const url = receiver.webhook('ok')
  const before = Math.floor(Date.now() / 1000)
  t.same(await chat.send(url, { text: 'Alert for `a &lt;b&gt; &amp; c`' }), { ok: true })
  const post = receiver.received.find((p) => p.path === new URL(url).pathname)!
  t.ok(post.verified, 'verify() accepted it')
  t.equal(post.headers['content-type'], 'application/json')
  t.match(post.headers['webhook-id'], /^msg_[0-9a-f-]{36}$/, 'a message id: msg_ and a random UUID')
  t.ok(Number(post.headers['webhook-timestamp']) >= before, 'the timestamp is the send time in seconds')
  t.match(post.headers['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}=$/, 'one v1 signature: base64 of 32 bytes')
  const body = JSON.parse(post.rawBody) as Record<string, unknown>
  t.same(Object.keys(body), ['version', 'type', 'text', 'sent_at'], 'exactly the documented fields')
  t.same({ version: body.version, type: body.type, text: body.text }, { version: 1, type: 'message', text: 'Alert for `a <b> & c`' }, 'plain text: Slack\'s entities decoded')
  t.equal(Math.floor(Date.parse(String(body.sent_at)) / 1000), Number(post.headers['webhook-timestamp']), 'sent_at is the same instant')
  const again = receiver.webhook('ok')
  await chat.send(again, { text: 'second' })
  t.not(receiver.received.find((p) => p.path === new URL(again).pathname)?.headers['webhook-id'], post.headers['webhook-id'], 'each send has its own id')
})

t.test('a receiver verifies a signature with only the secret and the headers, as docs/chat-webhooks.md says', async (t) => {
  const url = receiver.webhook('ok')
  await chat.send(url, { text: 'verify me' })
  const post = receiver.received.find((p) => p.path === new URL(url).pathname)!
  // The algorithm in the doc's words: HMAC-SHA256 over "id.timestamp.body" keyed with the
  // base64-decoded secret after whsec_, base64, prefixed "v1,".
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64')
  const signed = `${post.headers['webhook-id']}.${post.headers['webhook-timestamp']}.${post.rawBody}`
  const expected = Buffer.from(`v1,${createHmac('sha256', key).update(signed).digest('base64')}`)
  const given = post.headers['webhook-signature']!.split(' ').map((s) => Buffer.from(s))
  t.ok(given.some((s) => s.length === expected.length && timingSafeEqual(s, expected)), 'the hand-computed signature matches one given')
  t.ok(Math.abs(Date.now() / 1000 - Number(post.headers['webhook-timestamp'])) <= 300, 'within the five minutes a receiver allows')
})

t.test('a tampered body, another secret or an old timestamp fails verification', async (t) => {
  const url = receiver.webhook('ok')
  await chat.send(url, { text: 'original' })
  const post = receiver.received.find((p) => p.path === new URL(url).pathname)!
  const verifier = new Webhook(secret)
  t.doesNotThrow(() => verifier.verify(post.rawBody, post.headers), 'the delivery as sent verifies')
  t.throws(() => verifier.verify(post.rawBody.replace('original', 'tampered'), post.headers), /No matching signature/, 'a changed body')
  t.throws(() => new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(post.rawBody, post.headers), /No matching signature/, 'another secret')
  // A replay six minutes later, even signed correctly for its old time, is too old.
  const old = new Date(Date.now() - 6 * 60_000)
  const replayed = { ...post.headers, 'webhook-timestamp': String(Math.floor(old.getTime() / 1000)), 'webhook-signature': verifier.sign(post.headers['webhook-id']!, old, post.rawBody) }
  t.throws(() => verifier.verify(post.rawBody, replayed), /timestamp too old/, 'an old timestamp')
  const stranger = await loadPlugin('chat', 'chat-webhook', { allowPrivateAddresses: true, secret: `whsec_${randomBytes(32).toString('base64')}` }, { log: capturingLogger().log })
  const refused = await stranger.send(url, { text: 'signed with another secret' })
  t.match(refused, { ok: false, rejected: true, error: /refused the signed message \(401\).*same secret as SVC_CHAT_WEBHOOK_SECRET/ }, 'the receiver refuses a post signed with another secret')
  t.equal(receiver.received.filter((p) => p.path === new URL(url).pathname && !p.verified).length, 1)
})

t.test('the receiver\'s answers: 401, 403, 404 and 410 reject the webhook; others are retried; its body is never repeated', async (t) => {
  for (const status of [401, 403, 404, 410]) {
    const result = await chat.send(receiver.webhook(status), { text: 'x' })
    t.match(result, { ok: false, rejected: true, error: new RegExp(`\\(?${status}`) }, `${status} rejects`)
  }
  for (const status of [400, 429, 500, 503]) {
    const result = await chat.send(receiver.webhook(status), { text: 'x' })
    t.match(result, { ok: false, error: new RegExp(String(status)) }, `${status} fails`)
    t.notOk((result as { rejected?: boolean }).rejected, `${status} is not a refusal of the webhook`)
    t.notMatch((result as { error: string }).error, /no thanks/, 'the receiver\'s own text is not repeated')
  }
  t.notMatch(lines.join('\n'), /whsec_|v1,/, 'neither the secret nor a signature is logged')
})

t.test('a malformed secret stops the plugin at start, saying how to make one and never repeating it', async (t) => {
  for (const bad of ['plainsecretvalue', 'whsec_not*base64', `whsec_${randomBytes(8).toString('base64')}`]) {
    const error = await t.rejects(loadPlugin('chat', 'chat-webhook', { secret: bad }, { log: capturingLogger().log }))
    t.type(error, PluginError)
    t.match((error as Error).message, /could not start: the secret \(SVC_CHAT_WEBHOOK_SECRET\).*openssl rand -base64 32/)
    t.notMatch((error as Error).message, bad, 'the value is not shown')
  }
  const missing = await t.rejects(loadPlugin('chat', 'chat-webhook', {}, { log: capturingLogger().log }))
  t.match((missing as Error).message, /"secret" is required/)
})
