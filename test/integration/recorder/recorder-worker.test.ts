import { randomUUID } from 'node:crypto'
import t from 'tap'
import { envelopeFields } from '../../../shared/domain/event.js'
import { createObjectStore } from '../../../shared/object-store.js'
import { SERVICE_NAMES } from '../../../shared/config/index.js'
import { textOf } from '../../helpers/processes.js'
import { chunkOf, recorderDrained, sendChunk } from '../../helpers/browser/recording-chunks.js'
import { sampleEvent, startTestStack, waitFor } from '../../helpers/stack.js'

t.test('a worker hosting every service runs the recorder beside the grouper: /health lists it, chunks are recorded, and an event naming its recording is stored with it under the same user key', async (t) => {
  t.ok(SERVICE_NAMES.includes('recorder'), 'recorder is one of the services `svc worker` hosts by default')
  const stack = await startTestStack(t, { ingress: false })
  const worker = await stack.startWorker()
  t.ok(worker.services.some((service) => service.name === 'recorder'), 'the default worker hosts it')
  const objects = await createObjectStore(stack.config.objectStore)
  const place = { objects, redis: stack.redis, keys: stack.keys }

  const recording = randomUUID()
  const user = { id: 'user-7', email: 'lin@example.com' }
  await sendChunk(place, chunkOf(stack.projectId, recording, 0, { user, errors: 1 }))
  await recorderDrained(stack)
  const health = await textOf(`http://127.0.0.1:${worker.healthPort}/health`)
  t.match(health, /^service recorder: ok eligible=0 held_back=0 dead_lettered=0$/m, '/health lists the recorder')
  t.match(health, /^recordings: open=1 closed=0 deleted=0 retention_days=30 idle_minutes=30$/m, 'with its recordings')

  // Events as the ingress queues them; the body's recording_id is the link (docs/recordings.md).
  const events = [
    { id: randomUUID(), body: sampleEvent({ recording_id: recording, user, session_id: 'linked' }) },
    { id: randomUUID(), body: sampleEvent({ recording_id: 'not-a-uuid', session_id: 'bad-id' }) },
    { id: randomUUID(), body: sampleEvent({ recording_id: 42, session_id: 'number' }) },
    { id: randomUUID(), body: sampleEvent({ session_id: 'none' }) },
  ]
  for (const event of events) {
    await stack.redis.xadd(stack.keys.events, '*', ...envelopeFields({ id: event.id, projectId: stack.projectId, keyId: 'seede2e00001', receivedAt: Date.now(), body: JSON.stringify(event.body) }))
  }
  const rows = await waitFor(async () => {
    const { rows } = await stack.db.query<{ session_id: string; recording_id: string | null; user_key: string | null }>('SELECT session_id, recording_id, user_key FROM events ORDER BY session_id')
    return rows.length === events.length ? rows : undefined
  })
  t.same(
    rows.map((row) => [row.session_id, row.recording_id]),
    [['bad-id', null], ['linked', recording], ['none', null], ['number', null]],
    'the event naming a recording by UUID is stored with it; anything else stores none',
  )
  const { rows: recorded } = await stack.db.query<{ user_key: string }>('SELECT user_key FROM recordings WHERE id = $1', [recording])
  t.equal(rows.find((row) => row.session_id === 'linked')!.user_key, recorded[0]!.user_key, 'the event and the recording carry the same user key')
  const { rows: sessions } = await stack.db.query<{ id: string }>(
    `SELECT r.id FROM events e JOIN recordings r ON r.project_id = e.project_id AND r.id = e.recording_id WHERE e.issue_id = (SELECT issue_id FROM events WHERE session_id = 'linked')`,
  )
  t.same(sessions, [{ id: recording }], "the issue's sessions are found through its events")
})
