import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping'
import { buildSync } from 'esbuild'
import t from 'tap'
import { ensureSdkBuilt } from '../../helpers/browser/browser.js'
import { childEnv } from '../../helpers/env.js'

// svc-sourcemaps on a Next.js build folder, made by hand as Turbopack and webpack leave it; the
// uploads go to a loopback server that records them. The real build, service and browser are in
// test/browser/next-app.test.ts.
ensureSdkBuilt()

const CLI = fileURLToPath(new URL('../../../sdk/bin/svc-sourcemaps.mjs', import.meta.url))
const KEY = 'svc_sk_aaaaaaaaaaaa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'
const SOURCE = 'export function pay(order) {\n  return order.total.amount\n}\n'

interface Teardown {
  teardown(fn: () => unknown): void
}

interface Upload {
  path: string
  release: string
  debugId: string | undefined
  map: { debugId?: string; mappings: string }
}

/**
 * A .next folder: BUILD_ID, the config Next.js keeps, a Turbopack chunk whose map is named unlike
 * it, a webpack chunk with its map beside it, and a CSS map. Returns .next/static.
 */
function nextBuild(t: Teardown, config: Record<string, unknown> = {}, extra: Record<string, string> = {}): string {
  const next = join(mkdtempSync(join(tmpdir(), 'svc-next-')), '.next')
  t.teardown(() => rmSync(join(next, '..'), { recursive: true, force: true }))
  mkdirSync(join(next, 'static/chunks'), { recursive: true })
  mkdirSync(join(next, 'static/css'))
  writeFileSync(join(next, 'BUILD_ID'), 'b1d-7\n')
  writeFileSync(join(next, 'required-server-files.json'), JSON.stringify({ version: 1, config: { basePath: '', assetPrefix: '', ...config } }))
  for (const [file, text] of Object.entries(extra)) writeFileSync(join(next, file), text)
  const out = buildSync({ stdin: { contents: SOURCE, sourcefile: 'app/pay.js' }, minify: true, format: 'esm', sourcemap: 'external', outfile: join(next, 'static/chunks/x.js'), write: false })
  const code = out.outputFiles.find((file) => file.path.endsWith('.js'))!.text.replace(/\/\/# sourceMappingURL=.*\n?$/, '')
  const map = out.outputFiles.find((file) => file.path.endsWith('.map'))!.text
  writeFileSync(join(next, 'static/chunks/0pay1turbo.js'), `${code}\n//# sourceMappingURL=3mapname.js.map`)
  writeFileSync(join(next, 'static/chunks/3mapname.js.map'), map)
  writeFileSync(join(next, 'static/chunks/pay-4f3a.js'), `${code}//# sourceMappingURL=pay-4f3a.js.map\n`)
  writeFileSync(join(next, 'static/chunks/pay-4f3a.js.map'), map)
  writeFileSync(join(next, 'static/css/app.css'), 'a{color:red}\n/*# sourceMappingURL=app.css.map */')
  writeFileSync(join(next, 'static/css/app.css.map'), '{"version":3,"sources":[],"mappings":""}')
  return join(next, 'static')
}

/** A loopback svc that records every upload and answers with status. */
async function recorder(t: Teardown, status = 201): Promise<{ url: string; uploads: Upload[] }> {
  const uploads: Upload[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      const query = new URL(req.url!, 'http://x').searchParams
      uploads.push({ path: query.get('path')!, release: query.get('release')!, debugId: req.headers['x-svc-debug-id'] as string | undefined, map: JSON.parse(body) as Upload['map'] })
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(status === 201 ? '{}' : '{"code":"internal_error","message":"boom"}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, uploads }
}

function run(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: childEnv({ SVC_SOURCEMAP_KEY: KEY, SVC_ENDPOINT: undefined, SVC_RELEASE: undefined, ...env }) })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    child.once('exit', (code) => resolve({ code, output }))
  })
}

const mapsIn = (dir: string): string[] => readdirSync(dir, { recursive: true }).map(String).filter((file) => file.endsWith('.map')).sort()
const debugIdOf = (code: string): string | undefined => /\/\/# debugId=([0-9a-f-]{36})\n/.exec(code)?.[1]

/** Where `order.total` in the deployed chunk maps to in the uploaded map: line 2 of app/pay.js. */
function originalOfAccess(code: string, map: Upload['map']): { source: string | null; line: number | null } {
  const lines = code.split('\n')
  const line = lines.findIndex((text) => /\w\.total\.amount/.test(text))
  const column = /\w\.total\.amount/.exec(lines[line]!)!.index
  const { source, line: original } = originalPositionFor(new TraceMap(map as ConstructorParameters<typeof TraceMap>[0]), { line: line + 1, column })
  return { source, line: original }
}

t.test('a .next/static folder: chunks stamped, each map uploaded as its chunk\'s under /_next/static/ for the build id, then maps and their comments removed', async (t) => {
  const svc = await recorder(t)
  const dir = nextBuild(t)
  const result = await run([dir], { SVC_ENDPOINT: svc.url })
  t.equal(result.code, 0, result.output)
  t.match(result.output, 'svc-sourcemaps: stamped 2 Next.js chunk(s) with debug ids', 'says what it stamped')
  t.same(mapsIn(dir), [], 'JavaScript and CSS maps are gone')
  for (const name of ['0pay1turbo.js', 'pay-4f3a.js']) {
    const code = readFileSync(join(dir, 'chunks', name), 'utf8')
    const id = debugIdOf(code)
    t.ok(id && code.startsWith(';!function(){') && code.endsWith(`//# debugId=${id}\n`), `${name} is stamped`)
    t.notMatch(code, 'sourceMappingURL', `${name} no longer points at a map`)
    const upload = svc.uploads.find((u) => u.path === `/_next/static/chunks/${name}`)!
    t.match(upload, { release: 'b1d-7', debugId: id, map: { debugId: id } }, `${name}'s map went up as its own, under the build id and its debug id`)
    t.match(originalOfAccess(code, upload.map), { source: /app\/pay\.js$/, line: 2 }, `${name}'s map still points its code at app/pay.js:2`)
  }
  t.same(svc.uploads.map((u) => u.path).sort(), ['/_next/static/chunks/0pay1turbo.js', '/_next/static/chunks/pay-4f3a.js'], 'nothing else: the Turbopack map is not taken for a file of its own name')
})

t.test('basePath and assetPrefix move the URL prefix; --url-prefix and SVC_RELEASE win over what the build says', async (t) => {
  const svc = await recorder(t)
  t.equal((await run([nextBuild(t, { basePath: '/shop' })], { SVC_ENDPOINT: svc.url })).code, 0, 'with a basePath')
  t.equal((await run([nextBuild(t, { basePath: '/shop', assetPrefix: 'https://cdn.example.com/assets/' })], { SVC_ENDPOINT: svc.url })).code, 0, 'with an assetPrefix on another host')
  t.equal((await run([nextBuild(t), '--url-prefix', '/static/'], { SVC_ENDPOINT: svc.url, SVC_RELEASE: 'shop@2.0.0' })).code, 0, 'with --url-prefix and SVC_RELEASE')
  t.same(
    svc.uploads.filter((u) => u.path.endsWith('pay-4f3a.js')).map((u) => [u.path, u.release]),
    [
      ['/shop/_next/static/chunks/pay-4f3a.js', 'b1d-7'],
      ['/assets/_next/static/chunks/pay-4f3a.js', 'b1d-7'],
      ['/static/chunks/pay-4f3a.js', 'shop@2.0.0'],
    ],
    'each chunk under its prefix and release',
  )
})

t.test('a run again after a failed upload keeps the stamps of the first and does not stamp twice', async (t) => {
  const dir = nextBuild(t)
  const down = await recorder(t, 500)
  const failed = await run([dir], { SVC_ENDPOINT: down.url })
  t.equal(failed.code, 1, 'the failed upload stops the build')
  t.same(mapsIn(dir), ['chunks/3mapname.js.map', 'chunks/pay-4f3a.js.map', 'css/app.css.map'], 'the maps stay for another try')
  const first = readFileSync(join(dir, 'chunks/0pay1turbo.js'), 'utf8')

  const svc = await recorder(t)
  const again = await run([dir], { SVC_ENDPOINT: svc.url })
  t.equal(again.code, 0, again.output)
  t.match(again.output, 'stamped 0 Next.js chunk(s)', 'nothing left to stamp')
  const code = readFileSync(join(dir, 'chunks/0pay1turbo.js'), 'utf8')
  t.equal(code.split('__svcDebugIds||{}').length, 2, 'one registration snippet')
  t.equal(debugIdOf(code), debugIdOf(first), 'the id of the first run')
  const upload = svc.uploads.find((u) => u.path === '/_next/static/chunks/0pay1turbo.js')!
  t.match(originalOfAccess(code, upload.map), { source: /app\/pay\.js$/, line: 2 }, 'the mappings moved once, not twice')
})

t.test('with subresource integrity the chunks stay as built, and the maps still go up as their chunks\'', async (t) => {
  const svc = await recorder(t)
  const dir = nextBuild(t)
  mkdirSync(join(dir, '../server'))
  writeFileSync(join(dir, '../server/subresource-integrity-manifest.json'), '{}')
  const before = readFileSync(join(dir, 'chunks/0pay1turbo.js'), 'utf8')
  const result = await run([dir], { SVC_ENDPOINT: svc.url })
  t.equal(result.code, 0, result.output)
  t.match(result.output, 'subresource integrity is on', 'says why it did not stamp')
  t.equal(readFileSync(join(dir, 'chunks/0pay1turbo.js'), 'utf8'), before, 'the chunk is untouched, so its hash holds')
  t.match(svc.uploads.find((u) => u.path === '/_next/static/chunks/0pay1turbo.js'), { release: 'b1d-7', debugId: undefined }, 'the Turbopack map went up as its chunk\'s, by URL and release only')
})

t.test('a folder named static without a BUILD_ID beside it is uploaded as any build folder', async (t) => {
  const svc = await recorder(t)
  const dir = nextBuild(t)
  rmSync(join(dir, '../BUILD_ID'))
  const before = readFileSync(join(dir, 'chunks/pay-4f3a.js'), 'utf8')
  const result = await run([dir], { SVC_ENDPOINT: svc.url, SVC_RELEASE: 'r1' })
  t.equal(result.code, 0, result.output)
  t.notMatch(result.output, 'stamped', 'nothing is stamped')
  t.equal(readFileSync(join(dir, 'chunks/pay-4f3a.js'), 'utf8'), before, 'no chunk is rewritten')
  t.same(svc.uploads.map((u) => [u.path, u.release]).sort(), [['/chunks/3mapname.js', 'r1'], ['/chunks/pay-4f3a.js', 'r1']], 'each map as the file of its own name, under /')
  t.ok(existsSync(join(dir, 'chunks/pay-4f3a.js')), 'the chunk itself stays')
})
