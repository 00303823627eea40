// Recording chunks through the S3 object store: the ingress with S3_* pointing at s3rver, a real S3
// implementation from npm. A chunk lands in the bucket as the gzip sent; while s3rver is stopped a
// chunk is refused with 503 and nothing is stored; once it is back the chunk sent again is taken.
import { gunzipSync, gzipSync } from 'node:zlib'
import t from 'tap'
import { ledger, postChunk, sampleChunk, streamEntries } from '../../helpers/browser/recording-wire.js'
import { startS3rver } from '../../helpers/loopback/s3rver.js'
import { startTestStack } from '../../helpers/stack.js'

t.test('a chunk round-trips through the S3 plugin into s3rver, and an outage of s3rver costs a 503 and nothing stored', async (t) => {
  const s3 = await startS3rver({ bucket: 'svc-recordings' })
  t.teardown(() => s3.close())
  const stack = await startTestStack(t, { env: s3.env() })
  t.equal(stack.config.objectStore.kind, 's3')

  const chunk = sampleChunk({ seq: 0 })
  const sent = gzipSync(JSON.stringify(chunk))
  const accepted = await postChunk(stack, sent, { headers: { 'Content-Encoding': 'gzip' } })
  t.equal(accepted.status, 202)
  const [entry] = await streamEntries(stack)
  t.ok(s3.object(entry!.key!)?.equals(sent), 'the bucket holds the gzip sent, under the key the entry names')
  t.same(JSON.parse(gunzipSync(s3.object(entry!.key!)!).toString()), chunk)
  t.ok((await ledger(stack)).has(entry!.key!))

  await s3.stop()
  const next = sampleChunk({ seq: 1, recording_id: chunk.recording_id })
  const refused = await postChunk(stack, next, { gzip: true })
  t.equal(refused.status, 503)
  t.match(refused.body, { code: 'objectstore_unavailable', retry_after: 10 })
  t.equal((await streamEntries(stack)).length, 1, 'no stream entry for it')
  t.equal((await ledger(stack)).size, 1, 'no ledger key for it')

  await s3.start()
  const again = await postChunk(stack, next, { gzip: true })
  t.equal(again.status, 202, 'sent again once s3rver is back, it is taken')
  const entries = await streamEntries(stack)
  t.equal(entries.length, 2)
  t.same(JSON.parse(gunzipSync(s3.object(entries[1]!.key!)!).toString()), next, 'and lands in the bucket')
})
