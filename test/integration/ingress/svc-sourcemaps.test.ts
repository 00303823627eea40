import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildSync } from 'esbuild'
import t from 'tap'
import { ensureSdkBuilt } from '../../helpers/browser/browser.js'
import { childEnv } from '../../helpers/env.js'
import { startTestStack } from '../../helpers/stack.js'

// The command runs the upload code the package ships in dist/, shared with the Vite plugin.
ensureSdkBuilt()

const CLI = fileURLToPath(new URL('../../../sdk/bin/svc-sourcemaps.mjs', import.meta.url))

/** A build folder as a bundler leaves it: a minified chunk, its map, a CSS file and its map. */
function buildDir(t: { teardown(fn: () => unknown): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-build-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  mkdirSync(join(dir, 'assets'))
  const out = buildSync({ stdin: { contents: 'export const pay = (o) => o.total.amount', sourcefile: 'src/pay.ts', loader: 'ts' }, minify: true, format: 'esm', sourcemap: 'external', outfile: join(dir, 'assets/index-4f3a.js'), write: false })
  for (const file of out.outputFiles) writeFileSync(file.path, file.contents)
  writeFileSync(join(dir, 'assets/index-4f3a.css'), 'a{color:red}\n/*# sourceMappingURL=index-4f3a.css.map */')
  writeFileSync(join(dir, 'assets/index-4f3a.css.map'), '{"version":3,"sources":[],"mappings":""}')
  return dir
}

function run(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: childEnv({ SVC_SOURCEMAP_KEY: undefined, SVC_ENDPOINT: undefined, SVC_RELEASE: undefined, ...env }) })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.once('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

const maps = (dir: string): string[] => readdirSync(join(dir, 'assets')).filter((f) => f.endsWith('.map')).sort()

t.test('without SVC_SOURCEMAP_KEY it prints a skip line, exits 0 and touches nothing', async (t) => {
  const dir = buildDir(t)
  const result = await run([dir, '--format', 'es'], {})
  t.equal(result.code, 0)
  t.match(result.stdout, /SVC_SOURCEMAP_KEY is not set; skipping/)
  t.same(maps(dir), ['index-4f3a.css.map', 'index-4f3a.js.map'], 'the maps are still there')
})

t.test('with a key it uploads the script maps, then removes every map; --keep-maps keeps them', async (t) => {
  const stack = await startTestStack(t)
  const key = await stack.mint('sourcemap')
  const dir = buildDir(t)
  const kept = await run([dir, '--keep-maps', '--format', 'es'], { SVC_SOURCEMAP_KEY: key, SVC_ENDPOINT: stack.baseUrl, SVC_RELEASE: 'shop@3.0.0' })
  t.equal(kept.code, 0, kept.stderr)
  t.same(maps(dir), ['index-4f3a.css.map', 'index-4f3a.js.map'], '--keep-maps keeps them')
  const result = await run([dir, '--format', 'es'], { SVC_SOURCEMAP_KEY: key, SVC_ENDPOINT: stack.baseUrl, SVC_RELEASE: 'shop@3.0.0' })
  t.equal(result.code, 0, result.stderr)
  t.match(result.stdout, /uploaded \/assets\/index-4f3a\.js \(release shop@3\.0\.0\)/)
  t.same(maps(dir), [], 'JavaScript and CSS maps are gone')
  t.ok(existsSync(join(dir, 'assets/index-4f3a.js')), 'the chunk itself stays')
  const { rows } = await stack.db.query<{ url_path: string; release: string }>('SELECT url_path, release FROM sourcemaps')
  t.same(rows, [{ url_path: '/assets/index-4f3a.js', release: 'shop@3.0.0' }])
  t.notMatch(result.stdout + result.stderr + kept.stdout + kept.stderr, key.slice(8), 'the key is never printed')
})

t.test('a refused key exits non-zero, says why, and leaves the maps', async (t) => {
  const stack = await startTestStack(t)
  const dir = buildDir(t)
  const result = await run([dir], { SVC_SOURCEMAP_KEY: stack.ingestKey, SVC_ENDPOINT: stack.baseUrl, SVC_RELEASE: 'r' })
  t.equal(result.code, 1)
  t.match(result.stderr, /failed with 403 insufficient_scope/)
  t.notMatch(result.stderr + result.stdout, stack.ingestKey.slice(8), 'the key is never printed')
  t.same(maps(dir), ['index-4f3a.css.map', 'index-4f3a.js.map'])
})

t.test('a server answering 500 makes it exit non-zero and keep the maps', async (t) => {
  const server = createServer((_req, res) => res.writeHead(500, { 'Content-Type': 'application/json' }).end('{"code":"internal_error","message":"boom"}'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { port } = server.address() as { port: number }
  const dir = buildDir(t)
  const result = await run([dir], { SVC_SOURCEMAP_KEY: 'svc_sk_aaaaaaaaaaaa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', SVC_ENDPOINT: `http://127.0.0.1:${port}`, SVC_RELEASE: 'r' })
  t.equal(result.code, 1)
  t.match(result.stderr, /failed with 500/)
  t.same(maps(dir), ['index-4f3a.css.map', 'index-4f3a.js.map'])
})

t.test('bad arguments exit 2 with the usage line', async (t) => {
  const result = await run([], {})
  t.equal(result.code, 2)
  t.match(result.stderr, /^usage: svc-sourcemaps <build-dir>/)
})
