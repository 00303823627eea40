/**
 * The alerter's integration stack: the ingress, a worker hosting the grouper and the alerter, the
 * chat-slack plugin posting to a loopback receiver, and the seeded project's chat connected to a
 * webhook of it. settled() is the barrier a test waits on before it says what did not happen: every
 * event stored, every issue change read by the alerter, every delivery ended.
 */
import type { Test } from 'tap'
import { loadPlugin } from '../../shared/plugins/loader.js'
import { createLogger } from '../../shared/log.js'
import { queueDepth } from '../../shared/streams/index.js'
import { GROUPS } from '../../shared/topology.js'
import { startChatLoopback, type ChatLoopback, type ChatAnswer } from './loopback/chat-loopback.js'
import { postEvent, sampleEvent, startTestStack, waitFor, type TestStack } from './stack.js'

export interface AlertStack {
  stack: TestStack
  receiver: ChatLoopback
  webhook: string
  /** Posts one event of the bug named name (its own stack, so its own issue); answers the event's id. */
  send(name: string, overrides?: Record<string, unknown>): Promise<string>
  /** The issue an event was stored in, once stored. */
  issueOf(eventId: string): Promise<string>
  /** Waits until nothing is left to store, to decide or to deliver. */
  settled(): Promise<void>
  /** The texts the receiver got on the project's webhook, in order. */
  posts(): string[]
}

/** Starts the stack with extra environment env and the project's webhook answering answer. */
export async function startAlertStack(t: Test, env: Record<string, string> = {}, answer: ChatAnswer = 'ok'): Promise<AlertStack> {
  const receiver = await startChatLoopback()
  t.teardown(() => receiver.close())
  const chat = await loadPlugin('chat', 'chat-slack', { allowPrivateAddresses: true }, { log: createLogger('silent') })
  const stack = await startTestStack(t, {
    env: { SVC_SERVICES: 'grouper,alerter', ALERT_GATHER_SECONDS: '1', ALERT_SWEEP_SECONDS: '1', ALERT_RETRY_BASE_SECONDS: '1', SVC_STREAM_LEASE_MS: '2000', ...env },
    plugins: { codehost: undefined, chat },
  })
  const webhook = receiver.webhook(answer)
  await stack.db.query(`UPDATE projects SET chat_webhook_url = $2, chat_connected_at = now() WHERE id = $1`, [stack.projectId, webhook])
  await stack.startWorker()
  const path = new URL(webhook).pathname
  return {
    stack,
    receiver,
    webhook,
    async send(name, overrides = {}) {
      const message = `${name} failed`
      const event = sampleEvent({ error: { type: 'Error', message, stack: `Error: ${message}\n    at ${name} (http://localhost:5173/assets/${name}.js:12:34)` }, ...overrides })
      const answered = await postEvent(stack.baseUrl, event, { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey })
      if (answered.status !== 202) throw new Error(`event answered ${answered.status}`)
      return String(answered.body.id)
    },
    issueOf: (eventId) => waitFor(async () => (await stack.db.query<{ issue_id: string }>('SELECT issue_id FROM events WHERE id = $1', [eventId])).rows[0]?.issue_id, 10_000),
    async settled() {
      await waitFor(async () => {
        const events = await queueDepth(stack.redis, stack.keys.events, GROUPS.grouper)
        const changes = await queueDepth(stack.redis, stack.keys.issueChanges, GROUPS.alerter)
        if (events.eligible + events.heldBack + changes.eligible + changes.heldBack > 0) return false
        const { rows } = await stack.db.query(`SELECT 1 FROM alert_deliveries WHERE state IN ('pending', 'sending')`)
        return rows.length === 0
      }, 10_000)
    },
    posts: () => receiver.received.filter((post) => post.path === path).map((post) => String((post.body as { text?: unknown }).text ?? '')),
  }
}
