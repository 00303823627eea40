/**
 * A digest's delivery through the chat-slack plugin to the loopback chat receiver: retried with
 * backoff while the chat is down, sent as stored and never rewritten, and a chat that refuses the
 * webhook marked broken where people and agents look (the setup facts, the project API).
 */
import t from 'tap'
import { approveSetupSession } from '../../../services/web/setup/approval.js'
import { createLogger } from '../../../shared/log.js'
import { startDigestHarness, type DigestHarness } from '../../helpers/digest-harness.js'

const MINUTE = 60_000

/** Moves the harness's clock to 09:00:10 UTC of day and lets the digest write, then check and deliver. */
async function runDay(h: DigestHarness, day: string): Promise<void> {
  const digester = await h.digester()
  h.clock.set(`${day}T09:00:10Z`)
  await h.settle(digester)
  h.clock.advance(10 * MINUTE)
  await h.settle(digester)
  await digester.stop()
}

t.test('a chat that is down gets the same payload again with backoff until it is back, then nothing more', async (t) => {
  const h = await startDigestHarness(t, { start: '2026-06-10T08:00:00Z' })
  const project = await h.project('Shop', 'UTC', 'server_error')
  await h.completed(project.id, { title: 'TypeError: cart is undefined', users: 4, at: new Date('2026-06-10T05:00:00Z') })
  const digester = await h.digester()
  await h.settle(digester)
  h.clock.set('2026-06-10T09:00:10Z')
  await h.settle(digester)
  h.clock.advance(10 * MINUTE)
  await h.settle(digester)
  t.match(await h.digests(project.id), [{ state: 'queued', step: 'deliver' }], 'the first delivery failed: it waits to be tried again')
  const { rows: [waiting] } = await h.stack.db.query<{ not_before: Date; delivery_attempts: number; error: string }>('SELECT not_before, delivery_attempts, error FROM digests WHERE project_id = $1', [project.id])
  t.equal(waiting!.not_before.toISOString(), '2026-06-10T09:11:10.000Z', 'a minute later')
  t.match(waiting, { delivery_attempts: 1, error: /Slack answered 500/ })
  t.notMatch(waiting!.error, new RegExp(project.hook.split('/').at(-1)!), 'the stored error holds no part of the webhook')

  h.clock.advance(1 * MINUTE)
  await h.settle(digester)
  const { rows: [again] } = await h.stack.db.query<{ not_before: Date }>('SELECT not_before FROM digests WHERE project_id = $1', [project.id])
  t.equal(again!.not_before.toISOString(), '2026-06-10T09:13:10.000Z', 'then two minutes later')

  h.chatReceiver.setAnswer(project.url, 'ok')
  h.clock.advance(2 * MINUTE)
  await h.settle(digester)
  const posts = h.posts(project.hook)
  t.equal(posts.length, 3, 'three tries reached the chat')
  t.equal(new Set(posts).size, 1, 'each carried the same payload')
  t.match(await h.digests(project.id), [{ state: 'delivered', payload: posts[0] }])
  h.clock.advance(60 * MINUTE)
  await h.settle(digester)
  t.equal(h.posts(project.hook).length, 3, 'nothing more once delivered')
})

t.test("a delivered payload stays as sent after later runs, and the database refuses to rewrite it", async (t) => {
  const h = await startDigestHarness(t, { start: '2026-06-10T08:00:00Z' })
  const project = await h.project('Shop', 'UTC')
  const issue = await h.completed(project.id, { title: 'TypeError: cart is undefined', users: 4, at: new Date('2026-06-10T05:00:00Z') })
  await h.settle(await h.digester())
  await runDay(h, '2026-06-10')
  const [first] = h.posts(project.hook)
  // The issue goes on: more users, a fix the next day. The facts frozen in the first digest do not follow.
  await h.stack.db.query('UPDATE issues SET user_count = 40 WHERE id = $1', [issue])
  await h.completed(project.id, { title: 'RangeError: bad date', users: 2, at: new Date('2026-06-10T20:00:00Z') })
  await runDay(h, '2026-06-11')
  const digests = await h.digests(project.id)
  t.same(digests.map((d) => [d.local_date, d.state]), [['2026-06-10', 'delivered'], ['2026-06-11', 'delivered']])
  t.equal(digests[0]!.payload, first, 'the first payload is unchanged')
  t.match(first, /4 users affected/, 'with the users it had when it was frozen')
  t.match(h.posts(project.hook)[1], /RangeError: bad date/)
  t.notMatch(h.posts(project.hook)[1], /TypeError/, 'the second day does not repeat the first')
  await t.rejects(h.stack.db.query(`UPDATE digests SET payload = 'edited' WHERE project_id = $1 AND local_date = '2026-06-10'`, [project.id]), /payload is immutable/)
  await t.rejects(h.stack.db.query(`UPDATE digest_items SET users = 40 WHERE issue_id = $1`, [issue]), /frozen facts are immutable/)
})

t.test('a chat that refuses the webhook is marked broken with the redacted error in the setup facts, and connecting chat again mends it', async (t) => {
  const h = await startDigestHarness(t, { start: '2026-06-10T08:00:00Z', ingress: true })
  const log = createLogger('silent')
  const registered = (await (await fetch(`${h.stack.baseUrl}/api/v1/agent/setup`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ project_name: 'Shop', agent_name: 'agent', git_remote: '' }) })).json()) as { poll_id: string; poll_token: string }
  const { rows: [user] } = await h.stack.db.query<{ id: string }>('INSERT INTO users (email) VALUES ($1) RETURNING id', [`${registered.poll_id}@example.test`])
  await approveSetupSession({ db: h.stack.db, redis: h.stack.redis, keys: h.stack.keys, log, baseUrl: h.stack.config.baseUrl, limits: h.stack.config.setup, codehost: undefined, chat: h.chat }, registered.poll_id, user!.id, { kind: 'new', name: 'Shop' })
  const headers = { 'Content-Type': 'application/json', 'X-Svc-Poll-Token': registered.poll_token }
  const base = `${h.stack.baseUrl}/api/v1/agent/poll/${registered.poll_id}`
  const state = async (): Promise<Record<string, unknown>> => (await (await fetch(`${base}/state`, { headers })).json()) as Record<string, unknown>
  const connect = async (url: string): Promise<unknown> => (await fetch(`${base}/chat`, { method: 'POST', headers, body: JSON.stringify({ webhook_url: url }) })).json()

  const webhook = h.chatReceiver.webhook('ok')
  t.same(await connect(webhook), { ok: true })
  t.match(await state(), { chat_connected: true, chat_error: '' })
  const { rows: [session] } = await h.stack.db.query<{ project_id: string }>('SELECT project_id FROM setup_sessions WHERE id = $1', [registered.poll_id])
  await h.completed(session!.project_id, { title: 'TypeError: cart is undefined', users: 4, at: new Date('2026-06-10T05:00:00Z') })
  await h.settle(await h.digester())

  // Slack revokes the webhook after it was connected.
  h.chatReceiver.setAnswer(webhook, 'invalid_token')
  await runDay(h, '2026-06-10')
  t.match(await h.digests(session!.project_id), [{ state: 'undelivered', error_code: 'chat_rejected' }], 'not delivered, and not tried again')
  const facts = await state()
  t.match(facts, { chat_connected: false, chat_error: /^Slack refused the webhook \(403 invalid_token\)/, steps: { chat: { status: 'pending' } } }, 'the setup facts say chat is broken and why')
  t.notOk(JSON.stringify(facts).includes(new URL(webhook).pathname.split('/').at(-1)!), 'without any part of the webhook')
  const posted = h.posts(new URL(webhook).pathname).length

  const mended = h.chatReceiver.webhook('ok')
  t.same(await connect(mended), { ok: true })
  t.match(await state(), { chat_connected: true, chat_error: '' }, 'a new webhook mends it')
  await runDay(h, '2026-06-11')
  t.match(h.posts(new URL(mended).pathname).at(-1), /^Daily digest for Shop, 2026-06-11: 1 update[\s\S]*TypeError: cart is undefined/, 'the next digest reaches the new webhook with what the undelivered one held')
  t.equal(h.posts(new URL(webhook).pathname).length, posted, 'and nothing more went to the refused one')
})
