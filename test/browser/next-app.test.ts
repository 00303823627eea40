import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { StackFrame } from '../../services/grouper/grouping/types.js'
import t, { type Test } from 'tap'
import { filesUnder, installFixtureApp, launchChromium, packSdk, runScript, shellEnv } from '../helpers/browser/browser.js'
import { freePort } from '../helpers/processes.js'
import { startTestStack, waitFor } from '../helpers/stack.js'

// What a Next.js user does: install the published package, build with the spec's script
// (`next build && svc-sourcemaps .next/static`) and nothing set but the source-map key and the
// service address, then `next start`. The assertions are on what the service stored.

const FIXTURE = fileURLToPath(new URL('../fixtures/next-app/', import.meta.url))
const NEXT = fileURLToPath(new URL('../../node_modules/next/dist/bin/next', import.meta.url))
const SKIP_LINE = 'svc-sourcemaps: SVC_SOURCEMAP_KEY is not set; skipping the source-map upload'
// Next.js asks to send usage data unless told not to; this machine has no network for it anyway.
const QUIET = { NEXT_TELEMETRY_DISABLED: '1' }
// Two real `next build`s and a browser: well past tap's two minutes a file on a busy 2-core machine.
t.setTimeout(8 * 60_000)
const tarball = await packSdk(t)

/** `next start` in dir on a free loopback port, stopped with the test; resolves with its origin once it answers. */
async function startNext(t: Test, dir: string, env: Record<string, string>): Promise<string> {
  const port = await freePort()
  const child = spawn(process.execPath, [NEXT, 'start', '--hostname', '127.0.0.1', '--port', String(port)], { cwd: dir, env: shellEnv({ ...QUIET, ...env }), stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  })
  const origin = `http://127.0.0.1:${port}`
  try {
    await waitFor(() => fetch(`${origin}/`).then((response) => response.ok, () => child.exitCode !== null && Promise.reject(new Error('next start exited'))), 60_000, 200)
  } catch (error) {
    throw new Error(`next start did not answer: ${(error as Error).message}\n${output}`)
  }
  return origin
}

const buildLines = (output: string): string[] => output.split('\n').filter((line) => line.startsWith('svc-sourcemaps: '))

t.test('`next build && svc-sourcemaps .next/static` with only the key stamps and uploads the maps, and a click handler\'s TypeError is stored as app/checkout.js in totalOfCart', async (t) => {
  t.setTimeout(300_000)
  const stack = await startTestStack(t, { worker: true })
  const app = await installFixtureApp(t, 'next-app', tarball)
  const key = await stack.mint('sourcemap')

  const started = Date.now()
  const build = await runScript(app, 'build', { ...QUIET, SVC_SOURCEMAP_KEY: key, SVC_ENDPOINT: stack.baseUrl, SVC_RELEASE: undefined, NEXT_PUBLIC_SVC_API_KEY: stack.ingestKey })
  t.equal(build.code, 0, build.code === 0 ? 'the build script succeeded' : build.output)
  t.comment(`next build && svc-sourcemaps .next/static took ${Date.now() - started} ms`)
  t.notMatch(build.output, key.split('_').pop()!, 'the key is never printed')

  const buildId = readFileSync(join(app, '.next/BUILD_ID'), 'utf8').trim()
  const staticDir = join(app, '.next/static')
  const files = filesUnder(staticDir)
  t.same(files.filter((file) => file.endsWith('.map')), [], 'no map is left in .next/static')
  // The chunk with the button's handler: found by its text, since Next names chunks by hash.
  const chunk = files.find((file) => file.endsWith('.js') && readFileSync(join(staticDir, file), 'utf8').includes('Checkout ('))!
  t.ok(chunk, 'the handler\'s chunk is there')
  const code = readFileSync(join(staticDir, chunk), 'utf8')
  const debugId = /\/\/# debugId=([0-9a-f-]{36})\n/.exec(code)?.[1]
  t.ok(debugId, 'the chunk carries its debug id')
  t.ok(code.startsWith(';!function(){') && code.includes(`]="${debugId}")`), 'and the snippet that registers it, first thing in the chunk')
  t.notMatch(code, 'sourceMappingURL', 'and no comment points browsers at the removed map')

  const lines = buildLines(build.output)
  t.match(lines[0], /^svc-sourcemaps: stamped [1-9]\d* Next\.js chunk\(s\) with debug ids$/, 'the chunks were stamped before the upload')
  t.ok(lines.includes(`svc-sourcemaps: uploaded /_next/static/${chunk} (release ${buildId}) (debug id ${debugId})`), 'its map went up as the chunk\'s, under the build id')
  const { rows: maps } = await stack.db.query<{ url_path: string; release: string; debug_id: string | null }>('SELECT url_path, release, debug_id FROM sourcemaps')
  t.ok(maps.length > 1 && maps.every((map) => map.url_path.startsWith('/_next/static/chunks/') && map.release === buildId), 'every map is filed under /_next/static/ and the build id')
  t.same(maps.filter((map) => map.url_path === `/_next/static/${chunk}`), [{ url_path: `/_next/static/${chunk}`, release: buildId, debug_id: debugId }], 'the service holds it under the chunk\'s URL path and debug id')

  const origin = await startNext(t, app, { SVC_ENDPOINT: stack.baseUrl })
  const browser = await launchChromium(t)
  const tab = await browser.newPage()
  const pings: number[] = []
  tab.on('requestfinished', (request) => {
    if (request.url() === `${origin}/svc/api/v1/ingest/ping`) void request.response().then((response) => pings.push(response?.status() ?? 0))
  })
  await tab.goto(`${origin}/`)
  await tab.waitForSelector('#crash[data-ready="yes"]')
  await tab.click('#crash')
  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === 1, 20_000, 50)
  t.same(pings, [204], 'the SDK pinged the service through the /svc tunnel')

  const source = readFileSync(join(FIXTURE, 'app/checkout.js'), 'utf8').split('\n')
  const line = source.findIndex((text) => text.includes('the TypeError is thrown here')) + 1
  const { rows } = await stack.db.query<{ type: string; debug_ids: Record<string, string>; release: string | null; frames: StackFrame[] }>(
    `SELECT payload->'error'->>'type' AS type, payload->'debug_ids' AS debug_ids, payload->>'release' AS release, grouping->'frames' AS frames FROM events`,
  )
  const event = rows[0]!
  t.equal(event.type, 'TypeError', 'the error as thrown')
  t.equal(event.debug_ids[`${origin}/_next/static/${chunk}`], debugId, 'the SDK sent the debug id of the handler\'s chunk')
  t.equal(event.release, null, 'no release: the debug id alone found the map')
  const top = event.frames.find((frame) => frame.inApp)
  t.match(top, { file: `${origin}/_next/static/${chunk}`, original: { file: /(^|\/)app\/checkout\.js$/, line, function: 'totalOfCart' } }, `the top in-app frame is app/checkout.js:${line} in totalOfCart`)
})

t.test('without SVC_SOURCEMAP_KEY the build prints the skip line and leaves no map and no map comment', async (t) => {
  t.setTimeout(240_000)
  const app = await installFixtureApp(t, 'next-app', tarball)
  const build = await runScript(app, 'build', { ...QUIET, SVC_SOURCEMAP_KEY: undefined, SVC_ENDPOINT: undefined, SVC_RELEASE: undefined })
  t.equal(build.code, 0, build.code === 0 ? 'the build script succeeded' : build.output)
  t.same(buildLines(build.output), [SKIP_LINE], 'one skip line')
  const files = filesUnder(join(app, '.next'))
  t.same(files.filter((file) => file.endsWith('.js.map') || file.endsWith('.css.map')).filter((file) => file.startsWith('static/')), [], 'Next.js made no browser map')
  const chunks = files.filter((file) => file.startsWith('static/') && file.endsWith('.js'))
  // A comment line, not the text anywhere: the recorder's chunk carries rrweb's canvas worker as a string that mentions its own map.
  t.same(chunks.filter((file) => /^\/\/# (sourceMappingURL|debugId)=/m.test(readFileSync(join(app, '.next', file), 'utf8'))), [], 'nor stamped or pointed any chunk at one')
})
