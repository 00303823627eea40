import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { envelopeFields } from '../../../shared/domain/event.js'
import { groupKeys } from '../../../shared/streams/names.js'
import { GROUPS } from '../../../shared/topology.js'
import { childEnv } from '../../helpers/env.js'
import { sampleEvent, startTestStack, waitFor } from '../../helpers/stack.js'

const SVC = fileURLToPath(new URL('../../../bin/svc.js', import.meta.url))

t.test('svc dead-letters lists what the grouper gave up on and, once the cause is fixed, replays it into storage', async (t) => {
  const stack = await startTestStack(t, { ingress: false, worker: true, env: { SVC_STREAM_MAX_ATTEMPTS: '1' } })
  const run = (...args: string[]) => spawnSync(process.execPath, [SVC, 'dead-letters', ...args], { env: childEnv({ REDIS_URL: stack.redisUrl, REDIS_KEY_PREFIX: stack.prefix, LOG_LEVEL: 'silent' }), encoding: 'utf8' })
  // An event for a project that does not exist yet fails every time: its issue cannot be written.
  const missingProject = randomUUID()
  const envelope = { id: randomUUID(), projectId: missingProject, keyId: 'seede2e00001', receivedAt: Date.now(), body: JSON.stringify(sampleEvent()) }
  await stack.redis.xadd(stack.keys.events, '*', ...envelopeFields(envelope))
  const dead = groupKeys(stack.keys.events, GROUPS.grouper).dead
  await waitFor(async () => (await stack.redis.xlen(dead)) === 1, 15_000, 50)

  const listed = run()
  t.equal(listed.status, 0, listed.stderr)
  t.match(listed.stdout, /events 1\tattempts 1\t.*foreign key/, 'the letter, its size and its error')
  t.match(listed.stdout, '1 dead letter(s) in group grouper; replay them with --replay')
  t.notMatch(listed.stdout, envelope.body.slice(0, 40), 'no payload is printed')

  const unknown = run('--replay', '--id', '1-0')
  t.equal(unknown.status, 1)
  t.match(unknown.stderr, 'no dead letter 1-0')
  t.equal(await stack.redis.xlen(dead), 1, 'an unknown id replays nothing')

  await stack.db.query("INSERT INTO projects (id, name) VALUES ($1, 'created late')", [missingProject])
  const replayed = run('--replay')
  t.equal(replayed.status, 0, replayed.stderr)
  t.match(replayed.stdout, 'replayed 1 dead letter(s) to group grouper')
  t.equal(await stack.redis.xlen(dead), 0, 'it left the dead-letter stream')
  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events WHERE id = $1', [envelope.id])).rowCount === 1, 15_000, 50)
  t.pass('the replayed event was stored')
  t.match(run().stdout, '0 dead letter(s) in group grouper.')

  const badGroup = run('--group', 'nobody')
  t.equal(badGroup.status, 2)
  t.match(badGroup.stderr, 'no consumer group "nobody"')
})
