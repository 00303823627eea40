/**
 * Alerts through a worker killed with -9 (docs/alerts.md, "Exactly once"): deliveries are pending
 * and being retried through a chat outage when the worker dies; svc up restarts it, the lapsed
 * leases are swept, and once the chat answers again every firing reaches it in exactly one message
 * the chat took. The kill falls while the chat refuses every post (500), so never between a post
 * the chat took and its commit, the one instant that could repeat a message.
 */
import t from 'tap'
import { SEED_PROJECT_ID } from '../../shared/db/seed.js'
import { startChatLoopback } from '../helpers/loopback/chat-loopback.js'
import { postEvent, sampleEvent, waitFor } from '../helpers/stack.js'
import { sleep } from './load.js'
import { supervisedStack } from './stack.js'

t.setTimeout(5 * 60_000)

/** Distinct bugs sent: each opens its own issue and fires its new-issue rule once. */
const BUGS = 12

t.test('a worker killed with -9 while alert deliveries wait out a chat outage: after the restart every firing is delivered exactly once', async (t) => {
  const receiver = await startChatLoopback()
  t.teardown(() => receiver.close())
  const webhook = receiver.webhook('server_error')
  const stack = await supervisedStack(t, { env: { SVC_ALLOW_PRIVATE_WEBHOOKS: '1', ALERT_GATHER_SECONDS: '1', ALERT_SWEEP_SECONDS: '1', ALERT_RETRY_BASE_SECONDS: '1', ALERT_RETRY_CAP_MINUTES: '1', SVC_STREAM_LEASE_MS: '3000' } })
  await stack.db.query(`UPDATE projects SET chat_webhook_url = $2, chat_connected_at = now() WHERE id = $1`, [SEED_PROJECT_ID, webhook])
  for (let i = 0; i < BUGS; i++) {
    const name = `bug${i}`
    const event = sampleEvent({ error: { type: 'Error', message: `${name} failed`, stack: `Error: ${name} failed\n    at ${name} (http://localhost:5173/assets/${name}.js:1:1)` } })
    const answered = await postEvent(stack.base, event, { 'Content-Type': 'application/json', 'X-API-Key': stack.key })
    t.equal(answered.status, 202, `${name} accepted`)
    // Spread over several gathers, so several deliveries are on their way when the worker dies.
    if (i % 4 === 3) await sleep(1500)
  }
  await waitFor(async () => (await stack.db.query(`SELECT 1 FROM alert_firings`)).rows.length === BUGS, 30_000)
  await waitFor(async () => (await stack.db.query(`SELECT 1 FROM alert_deliveries WHERE sends >= 1`)).rows.length >= 2, 30_000)
  const before = await stack.db.query<{ state: string }>(`SELECT state FROM alert_deliveries`)
  t.ok(before.rows.every((row) => row.state === 'pending' || row.state === 'sending'), `no delivery ended before the kill (${before.rows.map((row) => row.state).join(', ')})`)

  const worker = stack.pids().worker!
  process.kill(worker, 'SIGKILL')
  await waitFor(async () => stack.part('worker') !== undefined && stack.part('worker') !== worker, 30_000)
  // From here the chat takes every post: what it got before answered 500 and was not delivered.
  const outageEnded = receiver.received.length
  receiver.setAnswer(webhook, 'ok')

  await waitFor(async () => (await stack.db.query(`SELECT 1 FROM alert_deliveries WHERE state <> 'delivered'`)).rows.length === 0, 60_000)
  const taken = receiver.received.slice(outageEnded).map((post) => String((post.body as { text?: unknown }).text ?? ''))
  const { rows: firings } = await stack.db.query<{ issue_id: string; delivery_id: string }>('SELECT issue_id, delivery_id FROM alert_firings')
  t.equal(firings.length, BUGS, 'one firing per new issue, none twice')
  for (const firing of firings) {
    const carrying = taken.filter((text) => text.includes(`/issues/${firing.issue_id}`))
    t.equal(carrying.length, 1, `issue ${firing.issue_id.slice(0, 8)} reached the chat in exactly one taken message`)
  }
  const { rows: deliveries } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM alert_deliveries')
  t.equal(taken.length, deliveries[0]!.n, 'one taken post per delivery, no more')
  t.same(await stack.restarts(), { ingress: 0, worker: 1 }, 'the worker was restarted once')
  t.equal(await stack.stop(), 0, 'Ctrl-C stops svc up cleanly afterwards')
})
