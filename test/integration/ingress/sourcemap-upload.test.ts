import { gzipSync } from 'node:zlib'
import { buildSync } from 'esbuild'
import t from 'tap'
import { createObjectStore } from '../../../shared/object-store.js'
import { parseStack } from '../../../services/grouper/grouping/stack-parse.js'
import { storedMaps } from '../../../services/grouper/symbolication/stored-maps.js'
import { Symbolicator } from '../../../services/grouper/symbolication/symbolicator.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'

const MAP = buildSync({ stdin: { contents: 'export function pay(o) { return o.total.amount }', sourcefile: 'src/pay.ts', loader: 'ts' }, minify: true, format: 'esm', sourcemap: 'external', outfile: 'pay.js', write: false }).outputFiles.find((f) => f.path.endsWith('.map'))!.text

async function upload(stack: TestStack, key: string, query: string, body: string | Buffer, headers: Record<string, string> = {}) {
  const response = await fetch(`${stack.baseUrl}/api/v1/sourcemaps${query}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': key, ...headers }, body })
  return { status: response.status, body: (await response.json().catch(() => ({}))) as Record<string, unknown> }
}

t.test('a source-map key uploads a map, which is stored, recorded and sets the sourcemaps_uploaded fact', async (t) => {
  const stack = await startTestStack(t)
  const key = await stack.mint('sourcemap')
  const before = await stack.db.query<{ at: Date | null }>('SELECT sourcemaps_uploaded_at AS at FROM projects WHERE id = $1', [stack.projectId])
  t.equal(before.rows[0]!.at, null, 'no upload yet')
  const answer = await upload(stack, key, '?release=shop@2.0.0&path=/assets/pay-1a2b.js', gzipSync(MAP), { 'Content-Encoding': 'gzip', 'X-Svc-Debug-Id': 'C0FFEE00-0000-4000-8000-0000000000AA' })
  t.equal(answer.status, 201)
  t.match(answer.body, { path: '/assets/pay-1a2b.js', release: 'shop@2.0.0', debug_id: 'c0ffee00-0000-4000-8000-0000000000aa', bytes: Buffer.byteLength(MAP) })
  const after = await stack.db.query<{ at: Date | null }>('SELECT sourcemaps_uploaded_at AS at FROM projects WHERE id = $1', [stack.projectId])
  t.ok(after.rows[0]!.at instanceof Date, 'the project now has sourcemaps_uploaded')

  const maps = storedMaps(stack.db, await createObjectStore(stack.config.objectStore))
  t.equal(await maps.byUrlPath(stack.projectId, 'shop@2.0.0', '/assets/pay-1a2b.js'), MAP, 'found by release and path, byte for byte')
  t.equal(await maps.byDebugId(stack.projectId, 'c0ffee00-0000-4000-8000-0000000000aa'), MAP, 'and by debug id')
  t.equal(await maps.byUrlPath(stack.projectId, 'shop@1.0.0', '/assets/pay-1a2b.js'), undefined, 'not for another release')

  const frames = parseStack('TypeError: x\n    at pay (https://shop.example.com/assets/pay-1a2b.js:1:38)', 'x')
  const [frame] = await new Symbolicator(maps).symbolicate({ projectId: stack.projectId, release: 'shop@2.0.0', frames })
  t.equal(frame!.original?.file, 'src/pay.ts', 'the symbolicator reads what was uploaded')

  const again = await upload(stack, key, '?release=shop@2.0.0&path=/assets/pay-1a2b.js', MAP)
  t.equal(again.status, 201, 'uploading the same file again replaces it')
  const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sourcemaps')
  t.equal(rows[0]!.n, 1, 'one row per file and release')
})

t.test('every bad upload gets its status and code and stores nothing', async (t) => {
  const stack = await startTestStack(t)
  const key = await stack.mint('sourcemap')
  const cases: Array<{ name: string; key: string; query: string; body: string; status: number; code: string; message?: RegExp }> = [
    { name: 'an ingest key', key: stack.ingestKey, query: '?release=r&path=/a.js', body: MAP, status: 403, code: 'insufficient_scope', message: /source-map key \(svc_sk_/ },
    { name: 'a truncated key', key: key.slice(0, -2), query: '?release=r&path=/a.js', body: MAP, status: 401, code: 'key_malformed', message: /source-map key/ },
    { name: 'not JSON', key, query: '?release=r&path=/a.js', body: 'nope', status: 400, code: 'invalid_sourcemap' },
    { name: 'JSON that is not a map', key, query: '?release=r&path=/a.js', body: '{"version":2}', status: 400, code: 'invalid_sourcemap' },
    { name: 'no path', key, query: '?release=r', body: MAP, status: 400, code: 'sourcemap_target_missing' },
    { name: 'no release and no debug id', key, query: '?path=/a.js', body: MAP, status: 400, code: 'sourcemap_target_missing' },
    { name: 'a path that is not a URL path', key, query: '?release=r&path=a.js', body: MAP, status: 400, code: 'sourcemap_target_missing' },
  ]
  for (const c of cases) {
    const answer = await upload(stack, c.key, c.query, c.body)
    t.equal(answer.status, c.status, `${c.name}: ${c.status}`)
    t.equal(answer.body.code, c.code, `${c.name}: ${c.code}`)
    if (c.message) t.match(answer.body.message, c.message, `${c.name}: speaks of source maps`)
  }
  const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sourcemaps')
  t.equal(rows[0]!.n, 0, 'nothing recorded')
  const fact = await stack.db.query<{ at: Date | null }>('SELECT sourcemaps_uploaded_at AS at FROM projects WHERE id = $1', [stack.projectId])
  t.equal(fact.rows[0]!.at, null, 'and the fact is not set')
})

t.test('with S3_ENDPOINT where nothing listens, an upload answers 503 saying what to check, and records nothing', async (t) => {
  const stack = await startTestStack(t, { env: { S3_ENDPOINT: 'http://127.0.0.1:9', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'a', S3_SECRET_ACCESS_KEY: 's' } })
  const answer = await upload(stack, await stack.mint('sourcemap'), '?release=r&path=/a.js', MAP)
  t.equal(answer.status, 503)
  t.equal(answer.body.code, 'objectstore_unavailable')
  t.match(answer.body.message, /did not answer \(ECONNREFUSED\)\. Check that it is running and that S3_ENDPOINT points at it/)
  t.equal((await stack.db.query('SELECT 1 FROM sourcemaps')).rowCount, 0)
})
