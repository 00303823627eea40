import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import type { EventEnvelope } from '../../shared/event.js'
import { storeEventBatch } from '../../services/grouper/store-events.js'
import { childEnv } from '../helpers/env.js'
import { sampleEvent, startTestStack } from '../helpers/stack.js'

const SVC = fileURLToPath(new URL('../../bin/svc.js', import.meta.url))

t.test('a project on version 2 keeps its issues; svc grouping-upgrade moves its new events to version 3', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  await stack.db.query('UPDATE projects SET grouping_version = 2 WHERE id = $1', [stack.projectId])
  let n = 0
  const envelope = (): EventEnvelope => ({ id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, projectId: stack.projectId, keyId: 'seede2e00001', receivedAt: Date.now(), body: JSON.stringify(sampleEvent({ session_id: `s${n}` })) })
  await storeEventBatch(stack.db, [envelope(), envelope()])
  const before = await stack.db.query<{ grouping_version: number; event_count: string }>('SELECT grouping_version, event_count FROM issues')
  t.same(before.rows.map((r) => [r.grouping_version, Number(r.event_count)]), [[2, 2]], 'a project that existed before version 3 groups with version 2')

  const run = (...args: string[]) => spawnSync(process.execPath, [SVC, 'grouping-upgrade', ...args], { env: childEnv({ DATABASE_URL: stack.databaseUrl, LOG_LEVEL: 'silent' }), encoding: 'utf8' })
  const moved = run('--project', stack.projectId)
  t.equal(moved.status, 0, moved.stderr)
  t.match(moved.stdout, /now groups new events with version 3 \(was 2\)/)
  t.match(run('--project', stack.projectId).stdout, /already groups with version 3/, 'running it again changes nothing')
  t.match(run('--project', '11111111-1111-4111-8111-111111111111').stderr, /no project 11111111/)
  t.equal(run('--project', 'nope').status, 2)

  await storeEventBatch(stack.db, [envelope()])
  const after = await stack.db.query<{ grouping_version: number; event_count: string }>('SELECT grouping_version, event_count FROM issues ORDER BY grouping_version')
  t.same(after.rows.map((r) => [r.grouping_version, Number(r.event_count)]), [[2, 2], [3, 1]], 'the old issue keeps its version and events; the new event opens a version 3 issue')
})
