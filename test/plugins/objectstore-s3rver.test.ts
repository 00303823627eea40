// objectstore-s3 against s3rver, a real S3 implementation from npm rather than our stand-in: the
// objectstore conformance suite (DeleteObjects in batches included), and an outage that is the
// store itself stopping and coming back.
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { objectStoreConformance } from '../../plugins/conformance/objectstore.js'
import { capturingLogger } from '../../plugins/conformance/leaks.js'
import { importPluginModule, loadPlugin } from '../../shared/plugins/loader.js'
import { ObjectStoreUnavailable } from '../../shared/plugins/types.js'
import { closedOrigin } from '../helpers/loopback/github-loopback.js'
import { startS3rver } from '../helpers/loopback/s3rver.js'

const s3 = await startS3rver({ bucket: 'svc-objects' })
t.teardown(() => s3.close())

t.test('objectstore-s3 passes the objectstore conformance suite against s3rver', async (t) => {
  await objectStoreConformance(t, await importPluginModule('objectstore', 'objectstore-s3'), {
    settings: () => s3.settings(),
    outages: () => [
      { what: 's3rver is stopped', start: async () => (await s3.stop(), s3.settings()), end: () => s3.start() },
      { what: 'nothing listens at the endpoint', start: async () => s3.settings({ endpoint: await closedOrigin() }), end: async () => {} },
      { what: 'the access key id is unknown', start: async () => s3.settings({ accessKeyId: 'AKIAUNKNOWN000000000' }), end: async () => {} },
      { what: 'the bucket does not exist', start: async () => s3.settings({ bucket: 'no-such-bucket' }), end: async () => {} },
    ],
    secrets: () => ['S3RVER'],
    stored: async (key) => s3.object(key),
    unprepared: () => s3.settings({ bucket: `svc-unprepared-${randomBytes(4).toString('hex')}` }),
  })
})

t.test('a delete while s3rver is stopped fails as "down", and the same store deletes once it is back', async (t) => {
  const store = await loadPlugin('objectstore', 'objectstore-s3', s3.settings(), { log: capturingLogger().log })
  await store.put('recordings/p/r/000000-abc.json.gz', Buffer.from('chunk'))
  await s3.stop()
  const error = await store.delete(['recordings/p/r/000000-abc.json.gz']).then(
    () => undefined,
    (reason: unknown) => reason,
  )
  await s3.start()
  t.type(error, ObjectStoreUnavailable)
  t.match(error, { fault: 'down', message: /did not answer \(ECONNREFUSED\)\. Check that it is running/ })
  t.ok(s3.object('recordings/p/r/000000-abc.json.gz'), 'the object is still there')
  await store.delete(['recordings/p/r/000000-abc.json.gz'])
  t.equal(s3.object('recordings/p/r/000000-abc.json.gz'), undefined, 'and gone after the second try')
})
