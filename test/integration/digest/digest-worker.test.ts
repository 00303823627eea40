/**
 * The digester as a worker hosts it (SVC_SERVICES=digester): its own periodic sweep, with no test
 * calling it, opens the day, writes, checks and delivers; /health shows it.
 */
import t from 'tap'
import { ManualClock } from '../../../services/digester/clock.js'
import { startWorker } from '../../../services/worker/index.js'
import { createObjectStore } from '../../../shared/object-store.js'
import { createLogger } from '../../../shared/log.js'
import { loadPlugin } from '../../../shared/plugins/loader.js'
import { startChatLoopback } from '../../helpers/loopback/chat-loopback.js'
import { startTestStack, waitFor } from '../../helpers/stack.js'
import { seededByHand } from '../../helpers/suite-invariants.js'

t.test('a worker hosting the digester delivers a project\'s digest on its own sweep', async (t) => {
  const stack = await startTestStack(t, { ingress: false, env: { SVC_SERVICES: 'digester', SVC_STREAM_LEASE_MS: '1000' } })
  await seededByHand(stack.db)
  const log = createLogger('silent')
  const receiver = await startChatLoopback()
  t.teardown(() => receiver.close())
  const chat = await loadPlugin('chat', 'chat-slack', { allowPrivateAddresses: true }, { log })
  const webhook = receiver.webhook('ok')
  const { rows: [project] } = await stack.db.query<{ id: string }>(`INSERT INTO projects (name, timezone, chat_webhook_url, chat_connected_at) VALUES ('Shop', 'Europe/Berlin', $1, now()) RETURNING id`, [webhook])
  const { rows: [issue] } = await stack.db.query<{ id: string }>(`INSERT INTO issues (project_id, fingerprint, grouping_version, title, first_seen, last_seen, user_count) VALUES ($1, 'fp', 4, 'TypeError: x is undefined', now(), now(), 8) RETURNING id`, [project!.id])
  await stack.db.query(`INSERT INTO investigations (issue_id, project_id, episode, trigger, state, lease_until, finished_at) VALUES ($1, $2, 1, 'auto', 'investigated', $3, $3)`, [issue!.id, project!.id, '2026-06-10T05:00:00Z'])

  const clock = new ManualClock('2026-06-10T06:59:59Z')
  const worker = await startWorker({ db: stack.db, objects: await createObjectStore(stack.config.objectStore), redis: stack.redis, keys: stack.keys, log, services: stack.config.services, timing: stack.config.stream, healthPort: 0, healthHost: '127.0.0.1', digests: { settings: { ...stack.config.digest, sweepMs: 200 }, chat, baseUrl: 'https://svc.example.com', clock } })
  t.teardown(() => worker.stop())
  t.same(worker.services.map((service) => service.name), ['digester'])

  await waitFor(async () => (await stack.db.query('SELECT 1 FROM projects WHERE id = $1 AND digest_next_at IS NOT NULL', [project!.id])).rows.length > 0)
  clock.set('2026-06-10T07:00:05Z')
  await waitFor(async () => (await stack.db.query(`SELECT 1 FROM digests WHERE project_id = $1 AND step = 'check'`, [project!.id])).rows.length > 0)
  clock.set('2026-06-10T07:10:05Z')
  const posted = await waitFor(async () => receiver.received.find((post) => post.path === new URL(webhook).pathname))
  t.match(posted.body, { text: /^Daily digest for Shop, 2026-06-10: 1 update since the last digest\.\n\n• `TypeError: x is undefined`: the cause was found in your code; 8 users affected\./ })

  const health = await (await fetch(`http://127.0.0.1:${worker.healthPort}/health`)).text()
  t.match(health, /digests: running=\d+ max_concurrent=4 writer=mechanical \(no model\) chat=plugin loaded/)
  t.match(health, /digests: queued=0 running=0 undelivered=0/)
})
