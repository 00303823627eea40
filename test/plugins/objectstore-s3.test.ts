// objectstore-s3 through the loader, against an S3 stand-in on 127.0.0.1 that checks every
// request's SigV4 signature: the objectstore conformance suite, plus what is particular to S3
// (path-style requests, which answers are outages and which are configuration, start-up).
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { objectStoreConformance } from '../../plugins/conformance/objectstore.js'
import { assertNoSecrets, capturingLogger } from '../../plugins/conformance/leaks.js'
import { loadConfig } from '../../shared/config/index.js'
import { createObjectStore } from '../../shared/object-store.js'
import { importPluginModule, loadPlugin } from '../../shared/plugins/loader.js'
import { PluginError } from '../../shared/plugins/plugin-error.js'
import { ObjectStoreUnavailable } from '../../shared/plugins/types.js'
import { closedOrigin } from '../helpers/loopback/github-loopback.js'
import { startS3Loopback } from '../helpers/loopback/s3-loopback.js'

const s3 = await startS3Loopback({ bucket: 'svc-objects' })
t.teardown(() => s3.close())
// Stands in for a key pair someone mistyped; it is a secret too.
const WRONG_SECRET = 'wrongSecretKey+Example/0123456789abcdefghij'

const caught = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  )

t.test('objectstore-s3 passes the objectstore conformance suite', async (t) => {
  await objectStoreConformance(t, await importPluginModule('objectstore', 'objectstore-s3'), {
    settings: () => s3.settings(),
    outages: () => [
      { what: 'the store answers 500', start: async () => (s3.setMode('failing'), s3.settings()), end: async () => s3.setMode('ok') },
      { what: 'the store drops every connection', start: async () => (s3.setMode('unreachable'), s3.settings()), end: async () => s3.setMode('ok') },
      { what: 'nothing listens at the endpoint', start: async () => s3.settings({ endpoint: await closedOrigin() }), end: async () => {} },
      { what: 'the secret key is wrong', start: async () => s3.settings({ secretAccessKey: WRONG_SECRET }), end: async () => {} },
      { what: 'the bucket does not exist', start: async () => s3.settings({ bucket: 'no-such-bucket' }), end: async () => {} },
    ],
    secrets: () => [s3.secretAccessKey, WRONG_SECRET],
    stored: async (key) => s3.object(key),
    unprepared: () => s3.settings({ bucket: `svc-unprepared-${randomBytes(4).toString('hex')}` }),
  })
})

t.test('requests are path-style (/bucket/key) and signed for the configured key pair', async (t) => {
  const store = await loadPlugin('objectstore', 'objectstore-s3', s3.settings(), { log: capturingLogger().log })
  const before = s3.requests.length
  await store.put('projects/p/sourcemaps/abc.map', Buffer.from('{"version":3}'))
  t.equal((await store.get('projects/p/sourcemaps/abc.map'))?.toString(), '{"version":3}')
  t.same(
    s3.requests.slice(before).map((r) => `${r.method} ${r.path} ${r.status}`),
    ['PUT /svc-objects/projects/p/sourcemaps/abc.map 200', 'GET /svc-objects/projects/p/sourcemaps/abc.map 200'],
    'the loopback verified each signature and served the bucket as a path',
  )
})

t.test('an outage is "down" and a wrong bucket or key pair is "misconfigured", each naming what to check', async (t) => {
  const log = capturingLogger().log
  const failing = await loadPlugin('objectstore', 'objectstore-s3', s3.settings(), { log })
  s3.setMode('failing')
  const before = s3.requests.length
  const down = await caught(failing.put('x.map', Buffer.from('{}')))
  s3.setMode('ok')
  t.match(down, { name: 'ObjectStoreUnavailable', fault: 'down', message: /answered 500 InternalError\. It is down or overloaded/ })
  t.equal(s3.requests.length - before, 3, 'the SDK tried three times before giving up')

  const wrongKey = await loadPlugin('objectstore', 'objectstore-s3', s3.settings({ secretAccessKey: WRONG_SECRET }), { log })
  t.match(await caught(wrongKey.get('x.map')), { fault: 'misconfigured', message: /403 SignatureDoesNotMatch.*Check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY/ })
  const unknownId = await loadPlugin('objectstore', 'objectstore-s3', s3.settings({ accessKeyId: 'AKIAUNKNOWN000000000' }), { log })
  t.match(await caught(unknownId.put('x.map', Buffer.from('{}'))), { fault: 'misconfigured', message: /403 InvalidAccessKeyId/ })
  const wrongRegion = await loadPlugin('objectstore', 'objectstore-s3', s3.settings({ region: 'eu-west-3' }), { log })
  t.match(await caught(wrongRegion.put('x.map', Buffer.from('{}'))), { fault: 'misconfigured', message: /400 AuthorizationHeaderMalformed\. Check S3_ENDPOINT, S3_REGION and S3_BUCKET/ })
  const noBucket = await loadPlugin('objectstore', 'objectstore-s3', s3.settings({ bucket: 'missing-bucket' }), { log })
  t.match(await caught(noBucket.check()), { fault: 'misconfigured', message: /bucket "missing-bucket" does not exist.*S3_BUCKET/ })
  t.match(await caught(noBucket.get('x.map')), { fault: 'misconfigured', message: /bucket "missing-bucket" does not exist/ }, 'a GET tells a missing bucket from a missing key')
})

t.test('createObjectStore loads objectstore-s3 when S3_ENDPOINT is set, and the object lands in the bucket', async (t) => {
  const config = loadConfig({ ...s3.env(), SVC_OBJECT_DIR: '/nonexistent/unused' })
  t.equal(config.objectStore.kind, 's3')
  const store = await createObjectStore(config.objectStore, capturingLogger().log)
  await store.put('projects/p/sourcemaps/configured.map', Buffer.from('{"version":3,"mappings":""}'))
  t.equal(s3.object('projects/p/sourcemaps/configured.map')?.toString(), '{"version":3,"mappings":""}')
})

t.test('at start-up a store that is down only warns, and a misconfigured one stops start-up, both without the secret', async (t) => {
  const { log, lines } = capturingLogger()
  s3.setMode('unreachable')
  const store = await createObjectStore(loadConfig(s3.env()).objectStore, log)
  s3.setMode('ok')
  t.match(lines.join('\n'), /"level":"warn","msg":"object store unavailable at start-up; source-map uploads answer 503 until it is back".*"plugin":"objectstore-s3"/)
  await store.put('after-outage.map', Buffer.from('{}'))
  t.ok(s3.object('after-outage.map'), 'the same store works once the outage is over')

  const misconfigured = await caught(createObjectStore(loadConfig({ ...s3.env(), S3_SECRET_ACCESS_KEY: WRONG_SECRET }).objectStore, log))
  t.type(misconfigured, PluginError)
  // The start-up check is a HEAD, whose answers carry no body, so no S3 code: the status says enough.
  t.match((misconfigured as Error).message, /^Plugin objectstore-s3 \(objectstore\): cannot be used: .*answered 403, refusing the credentials\. Check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY/)
  t.notOk(misconfigured instanceof ObjectStoreUnavailable, 'not an outage to wait out')
  assertNoSecrets(t, `${(misconfigured as Error).message}\n${lines.join('\n')}`, [s3.secretAccessKey, WRONG_SECRET], 'the start-up error and log')
})

t.test('a bad setting is reported with the variable behind it and never its value', async (t) => {
  const config = loadConfig(s3.env())
  const bad = { ...config.objectStore, s3: { ...config.objectStore.s3!, endpoint: 'ftp://files.example', bucket: '' } }
  const error = await caught(createObjectStore(bad, capturingLogger().log))
  t.type(error, PluginError)
  t.match((error as Error).message, /"endpoint" \(set by S3_ENDPOINT\) must match pattern/)
  t.match((error as Error).message, /"bucket" \(set by S3_BUCKET\) must NOT have fewer than 1 characters/)
  assertNoSecrets(t, (error as Error).message, [s3.secretAccessKey, 'ftp://files.example'], 'the error')
})

t.test('a store that accepts connections and never answers is given up on at the deadline, not after every retry', async (t) => {
  const store = await loadPlugin('objectstore', 'objectstore-s3', s3.settings(), { log: capturingLogger().log })
  s3.setMode('hanging')
  t.teardown(() => s3.setMode('ok'))
  const started = Date.now()
  const error = await caught(store.check())
  const waited = Date.now() - started
  t.match(error, { fault: 'down', message: /did not answer \(timed out\)\. Check that it is running/ })
  // check's deadline is 10 s; three idle timeouts of 10 s each would take 30 s.
  t.ok(waited >= 9_000 && waited < 15_000, `gave up after ${waited} ms`)
})

t.test('prepare() creates a missing bucket in the configured region, which S3 outside us-east-1 requires the request to name', async (t) => {
  const paris = await startS3Loopback({ bucket: 'svc-elsewhere', region: 'eu-west-3' })
  t.teardown(() => paris.close())
  const store = await loadPlugin('objectstore', 'objectstore-s3', paris.settings({ bucket: 'svc-made-in-paris' }), { log: capturingLogger().log })
  const before = paris.requests.length
  await store.prepare!()
  t.same(
    paris.requests.slice(before).map((r) => `${r.method} ${r.path} ${r.status}`),
    ['HEAD /svc-made-in-paris/ 404', 'PUT /svc-made-in-paris/ 200', 'HEAD /svc-made-in-paris/ 200'],
    'asked, made with the region named (the loopback, as S3, refuses it otherwise), then proved',
  )
  await store.put('x.map', Buffer.from('{}'))
  t.equal(paris.object('x.map', 'svc-made-in-paris')?.toString(), '{}')
})
