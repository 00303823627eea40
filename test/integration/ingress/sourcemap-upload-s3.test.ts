// Source maps through the S3 object store: the whole stack (ingress and worker) with S3_* pointing
// at a loopback S3 that checks every request's signature. Uploads land in the bucket, the grouper
// reads them back, and an S3 outage costs a 503 (upload) or a map_missing frame (grouping), never
// a half-recorded map or a lost event.
import { createHash } from 'node:crypto'
import { runInNewContext } from 'node:vm'
import { buildSync } from 'esbuild'
import t from 'tap'
import { assertNoSecrets } from '../../../plugins/conformance/leaks.js'
import { startS3Loopback, type S3Loopback } from '../../helpers/loopback/s3-loopback.js'
import { postEvent, sampleEvent, startTestStack, waitFor, type TestStack } from '../../helpers/stack.js'

const URL_OF_BUNDLE = 'https://shop.example.com/assets/cart-5e6f7a8b.js'
const RELEASE = 'shop@3.0.0'

/** A minified bundle built from src/cart.ts, its map, and the V8 stack of running it from URL_OF_BUNDLE. */
function crash(): { map: string; stack: string; message: string } {
  const contents = 'function totalOf(cart) { let s = 0; for (const i of cart.items) s += i.price; return s }\nexport function main() { return totalOf(undefined) }\nmain()\n'
  const result = buildSync({ stdin: { contents, sourcefile: 'src/cart.ts', loader: 'ts' }, bundle: true, minify: true, format: 'iife', sourcemap: 'external', outfile: 'cart.js', write: false })
  try {
    runInNewContext(result.outputFiles.find((f) => f.path.endsWith('.js'))!.text, {}, { filename: URL_OF_BUNDLE })
  } catch (error) {
    return { map: result.outputFiles.find((f) => f.path.endsWith('.map'))!.text, stack: (error as Error).stack!, message: (error as Error).message }
  }
  throw new Error('the bundle did not throw')
}

const CRASH = crash()

async function s3Stack(t: { teardown(fn: () => unknown): void }): Promise<{ s3: S3Loopback; stack: TestStack; key: string }> {
  const s3 = await startS3Loopback({ bucket: 'svc' })
  t.teardown(() => s3.close())
  const stack = await startTestStack(t, { env: s3.env(), worker: true })
  return { s3, stack, key: await stack.mint('sourcemap') }
}

async function upload(stack: TestStack, key: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${stack.baseUrl}/api/v1/sourcemaps?release=${RELEASE}&path=${new URL(URL_OF_BUNDLE).pathname}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': key }, body: CRASH.map })
  return { status: response.status, body: (await response.json().catch(() => ({}))) as Record<string, unknown> }
}

async function sendCrash(stack: TestStack): Promise<void> {
  const event = sampleEvent({ release: RELEASE, error: { type: 'TypeError', message: CRASH.message, stack: CRASH.stack } })
  const answer = await postEvent(stack.baseUrl, event, { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey })
  if (answer.status !== 202) throw new Error(`event answered ${answer.status}`)
}

type StoredFrame = { file: string; original?: { file: string; function?: string }; unresolved?: string }

/** The frames of the count-th stored event (oldest first), once it is stored. */
async function storedFrames(stack: TestStack, count = 1): Promise<StoredFrame[]> {
  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === count, 15_000, 50)
  const { rows } = await stack.db.query<{ grouping: { frames: StoredFrame[] } }>('SELECT grouping FROM events ORDER BY received_at')
  return rows[count - 1]!.grouping.frames
}

t.test('an uploaded map lands in the S3 bucket under its recorded key, and the grouper reads it from there', async (t) => {
  const { s3, stack, key } = await s3Stack(t)
  const answer = await upload(stack, key)
  t.equal(answer.status, 201)
  const { rows } = await stack.db.query<{ object_key: string }>('SELECT object_key FROM sourcemaps')
  const digest = createHash('sha256').update(CRASH.map).digest('hex')
  t.equal(rows[0]?.object_key, `projects/${stack.projectId}/sourcemaps/${digest}.map`, 'recorded under its content key')
  t.equal(s3.object(rows[0]!.object_key)?.toString(), CRASH.map, 'the bucket holds the map byte for byte')
  t.ok(
    s3.requests.some((r) => r.method === 'PUT' && r.path === `/svc/${rows[0]!.object_key}` && r.status === 200),
    'written with a signed path-style PUT',
  )

  await sendCrash(stack)
  const frames = await storedFrames(stack)
  t.match(frames[0], { file: URL_OF_BUNDLE, original: { file: 'src/cart.ts', function: 'totalOf' } }, 'symbolicated from the map in S3')
  t.ok(s3.requests.some((r) => r.method === 'GET' && r.path === `/svc/${rows[0]!.object_key}` && r.status === 200), 'the worker read it from the bucket')
})

t.test('while S3 answers 500 or drops connections, an upload answers 503 objectstore_unavailable and records nothing; after, it works', async (t) => {
  const { s3, stack, key } = await s3Stack(t)
  for (const mode of ['failing', 'unreachable'] as const) {
    s3.setMode(mode)
    const answer = await upload(stack, key)
    s3.setMode('ok')
    t.equal(answer.status, 503, `${mode}: 503`)
    t.equal(answer.body.code, 'objectstore_unavailable', `${mode}: objectstore_unavailable`)
    t.match(answer.body.message, mode === 'failing' ? /answered 500 InternalError\. It is down or overloaded/ : /did not answer \(ECONNRESET\)\. Check that it is running and that S3_ENDPOINT/, `${mode}: says what to check`)
    assertNoSecrets(t, JSON.stringify(answer.body), [s3.secretAccessKey], `${mode}: the answer`)
  }
  t.equal((await stack.db.query('SELECT 1 FROM sourcemaps')).rowCount, 0, 'no sourcemaps row')
  const fact = await stack.db.query<{ at: Date | null }>('SELECT sourcemaps_uploaded_at AS at FROM projects WHERE id = $1', [stack.projectId])
  t.equal(fact.rows[0]!.at, null, 'the sourcemaps_uploaded fact is not set')
  t.same(s3.keys(), [], 'and the bucket holds nothing')

  const again = await upload(stack, key)
  t.equal(again.status, 201, 'once S3 answers again, the same upload is stored')
  t.equal((await stack.db.query('SELECT 1 FROM sourcemaps')).rowCount, 1)
})

t.test('while S3 is down, an event whose map is in S3 is still grouped, minified with map_missing, apart from the same error symbolicated', async (t) => {
  const { s3, stack, key } = await s3Stack(t)
  t.equal((await upload(stack, key)).status, 201)
  s3.setMode('failing')
  await sendCrash(stack)
  const during = await storedFrames(stack)
  t.match(during[0], { file: URL_OF_BUNDLE, unresolved: 'map_missing' }, 'the frame stays minified and says why')
  t.notOk(during.some((f) => f.original), 'nothing symbolicated')
  const issues = async () => (await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM issues')).rows[0]!.n
  t.equal(await issues(), 1, 'the event was grouped into an issue, not held or dead-lettered')

  s3.setMode('ok')
  await sendCrash(stack)
  const after = await storedFrames(stack, 2)
  t.match(after[0], { original: { file: 'src/cart.ts', function: 'totalOf' } }, 'the failed read was not remembered: the next event is symbolicated')
  t.equal(await issues(), 2, 'grouped on original frames, it joins another issue than the one made during the outage')
})
