/**
 * The digester under test: a real stack (PostgreSQL, Redis), the chat-slack plugin pointed at the
 * loopback chat receiver, optionally a model plugin on the scripted model server, and digesters
 * started on the stack with a manual clock. Seeds write the rows a digest picks (issues with their
 * completed investigations and fixes) by hand.
 */
import { randomUUID } from 'node:crypto'
import type { Test } from 'tap'
import { ManualClock } from '../../services/digester/clock.js'
import { createDigester, type Digester } from '../../services/digester/index.js'
import { DIGESTER_ENTITIES } from '../../services/digester/store/entities.js'
import { createLogger } from '../../shared/log.js'
import { createOrm } from '../../shared/db/orm.js'
import { loadPlugin } from '../../shared/plugins/loader.js'
import type { ModelPlugin } from '../../shared/plugins/model-types.js'
import type { ChatPlugin } from '../../shared/plugins/types.js'
import { ensureGroup } from '../../shared/streams/index.js'
import { GROUPS } from '../../shared/topology.js'
import { startChatLoopback, type ChatLoopback } from './loopback/chat-loopback.js'
import { startModelServer, type ModelServer, type Script } from './loopback/model-server.js'
import { startTestStack, waitFor, type TestStack } from './stack.js'
import { seededByHand } from './suite-invariants.js'

export interface DigestHarness {
  stack: TestStack
  clock: ManualClock
  chatReceiver: ChatLoopback
  chat: ChatPlugin
  model: ModelServer | undefined
  /** Starts a digester (a worker's) on the stack with the harness's clock; stopped with the test. */
  digester(options?: { model?: boolean }): Promise<Digester>
  /** A new project in zone with chat connected to a new webhook of the receiver; answers its id, webhook path and URL. */
  project(name: string, zone: string, chat?: 'ok' | 'invalid_token' | 'server_error' | 'none'): Promise<{ id: string; hook: string; url: string }>
  /** An error issue whose investigation completed at `at` (and optionally a draft fix with its pull request). */
  completed(projectId: string, options: { title: string; users: number; at: Date; fix?: { number: number } }): Promise<string>
  /** The posts that reached one webhook path, as their text. */
  posts(hook: string): string[]
  /** Sweeps once and waits until no digest is queued with a due step or running (for as long as waitFor's patience allows). */
  settle(digester: Digester): Promise<void>
  digests(projectId: string): Promise<Array<{ local_date: string; state: string; step: string; payload: string | null; written_by: string; error_code: string }>>
}

/** Starts the stack, the chat receiver and, when a script is given, the model server. */
export async function startDigestHarness(t: Test, options: { start: string; script?: Script; ingress?: boolean } = { start: '2026-06-10T06:00:00Z' }): Promise<DigestHarness> {
  const log = createLogger('silent')
  const chat = await loadPlugin('chat', 'chat-slack', { allowPrivateAddresses: true }, { log })
  const stack = await startTestStack(t, { ingress: options.ingress ?? false, worker: false, plugins: { codehost: undefined, chat }, env: { SVC_STREAM_LEASE_MS: '1000', SVC_STREAM_RETRY_BASE_MS: '50', DIGEST_CHECK_MINUTES: '10' } })
  await seededByHand(stack.db)
  const clock = new ManualClock(options.start)
  const chatReceiver = await startChatLoopback()
  t.teardown(() => chatReceiver.close())
  let model: ModelServer | undefined
  let modelPlugin: ModelPlugin | undefined
  if (options.script) {
    const server = await startModelServer(options.script)
    model = server
    t.teardown(() => server.close())
    // The scripted server answers at once; the timeout only has to outlast a loaded machine (as the investigation harness's 20 s).
    modelPlugin = await loadPlugin('model', 'model-anthropic', { apiKey: 'sk-ant-digest-test', baseUrl: server.anthropicBaseUrl, model: 'claude-test', timeoutMs: 20_000 }, { log })
  }
  await ensureGroup(stack.redis, stack.keys.digests, GROUPS.digester)
  const orm = await createOrm(stack.db, DIGESTER_ENTITIES)
  t.teardown(() => orm.close())
  const harness: DigestHarness = {
    stack,
    clock,
    chatReceiver,
    chat,
    model,
    async digester(opts = {}) {
      const digester = createDigester({ db: stack.db, orm, redis: stack.redis, keys: stack.keys, log, timing: stack.config.stream, settings: { ...stack.config.digest, sweepMs: 60_000 }, chat, model: opts.model === false ? undefined : modelPlugin, baseUrl: 'https://svc.example.com', clock })
      await digester.start()
      t.teardown(() => digester.stop())
      return digester
    },
    async project(name, zone, answer = 'ok') {
      const webhook = answer === 'none' ? '' : chatReceiver.webhook(answer)
      const { rows } = await stack.db.query<{ id: string }>(`INSERT INTO projects (name, timezone, chat_webhook_url, chat_connected_at) VALUES ($1, $2, $3, CASE WHEN $3 = '' THEN NULL ELSE now() END) RETURNING id`, [name, zone, webhook])
      return { id: rows[0]!.id, hook: webhook === '' ? '' : new URL(webhook).pathname, url: webhook }
    },
    async completed(projectId, { title, users, at, fix }) {
      const issue = randomUUID()
      await stack.db.query(`INSERT INTO issues (id, project_id, fingerprint, grouping_version, title, first_seen, last_seen, user_count) VALUES ($1, $2, $3, 4, $4, $5, $5, $6)`, [issue, projectId, `fp-${issue}`, title, at, users])
      const { rows } = await stack.db.query<{ id: string }>(
        `INSERT INTO investigations (issue_id, project_id, episode, trigger, state, lease_until, finished_at) VALUES ($1, $2, 1, 'auto', 'investigated', $3, $3) RETURNING id`,
        [issue, projectId, at],
      )
      if (fix) {
        await stack.db.query(
          `INSERT INTO fixes (investigation_id, issue_id, project_id, trigger, state, lease_until, delivery, pr_number, pr_url, finished_at) VALUES ($1, $2, $3, 'auto', 'pr_draft', $4, 'draft', $5, $6, $4)`,
          [rows[0]!.id, issue, projectId, at, fix.number, `https://github.com/acme/shop/pull/${fix.number}`],
        )
      }
      return issue
    },
    posts: (hook) => chatReceiver.received.filter((post) => post.path === hook).map((post) => String((post.body as { text?: unknown }).text)),
    async settle(digester) {
      await digester.sweepNow()
      await waitFor(async () => {
        const { rows } = await stack.db.query(`SELECT 1 FROM digests WHERE state = 'running' OR (state = 'queued' AND not_before <= $1)`, [clock.now()])
        return rows.length === 0
      })
    },
    async digests(projectId) {
      const { rows } = await stack.db.query(`SELECT to_char(local_date, 'YYYY-MM-DD') AS local_date, state, step, payload, written_by, error_code FROM digests WHERE project_id = $1 ORDER BY local_date`, [projectId])
      return rows as Awaited<ReturnType<DigestHarness['digests']>>
    },
  }
  return harness
}
