import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { StackFrame } from '../../services/grouper/grouping/types.js'
import t, { type Test } from 'tap'
import { driveFirefox, filesUnder, installFixtureApp, launchChromium, packSdk, serveBuild, viteBuild } from '../helpers/browser/browser.js'
import { startTestStack, waitFor } from '../helpers/stack.js'

// What a user does: install the published package into a Vite app, build it with svc() and a
// source-map key, deploy the build. The assertions are on what the service stored.

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url))
const tarball = await packSdk(t)

/** 1-based line of a fixture's source file holding the marker: where the bug throws. */
function lineOf(path: string, marker: string): number {
  return readFileSync(join(FIXTURES, path), 'utf8').split('\n').findIndex((line) => line.includes(marker)) + 1
}

const ready = (): boolean => (globalThis as unknown as { svcReady?: boolean }).svcReady === true

/**
 * Builds the fixture against a running stack, opens the build in Chromium and in Firefox ESR,
 * clicks the button in each, and checks the upload, the ping and both stored events.
 */
async function buildClickAndCheck(t: Test, fixture: string, source: string): Promise<void> {
  const stack = await startTestStack(t, { worker: true })
  const app = await installFixtureApp(t, fixture, tarball)
  t.same(readdirSync(join(app, 'node_modules')).filter((name) => !name.startsWith('.')), ['@svc'], 'installing the tarball installed nothing else')

  const key = await stack.mint('sourcemap')
  const build = await viteBuild(app, { SVC_SOURCEMAP_KEY: key, SVC_ENDPOINT: stack.baseUrl, SVC_RELEASE: undefined, VITE_SVC_API_KEY: stack.ingestKey, VITE_SVC_ENDPOINT: stack.baseUrl })
  t.equal(build.code, 0, build.output)
  t.notMatch(build.output, key.split('_').pop()!, 'the key is never printed')
  const dist = join(app, 'dist')
  const files = filesUnder(dist)
  t.same(files.filter((file) => file.endsWith('.map')), [], 'no map is left in the build')
  const chunk = files.find((file) => /^assets\/index-[\w-]+\.js$/.test(file))!
  const code = readFileSync(join(dist, chunk), 'utf8')
  const debugId = /\/\/# debugId=([0-9a-f-]{36})\n/.exec(code)?.[1]
  t.ok(debugId, 'the chunk carries its debug id')
  t.ok(code.startsWith(`;!function(){`) && code.includes(`]="${debugId}")`), 'and the snippet that registers it, first thing in the chunk')
  t.match(build.output, `svc: uploaded /${chunk} (debug id ${debugId})`)
  const { rows: maps } = await stack.db.query<{ url_path: string; debug_id: string }>('SELECT url_path, debug_id FROM sourcemaps')
  t.same(maps.filter((map) => map.url_path === `/${chunk}`), [{ url_path: `/${chunk}`, debug_id: debugId }], 'its map was uploaded under that id')

  // 127.0.0.1, not localhost: Firefox tries ::1 first, where the page server does not listen.
  const origin = (await serveBuild(t, dist)).replace('localhost', '127.0.0.1')
  const browser = await launchChromium(t)
  const tab = await browser.newPage()
  const pings: Array<{ status: number; key: string | undefined; cookie: string | undefined }> = []
  tab.on('requestfinished', (request) => {
    if (!request.url().endsWith('/api/v1/ingest/ping')) return
    void request.response().then((response) => pings.push({ status: response?.status() ?? 0, key: request.headers()['x-api-key'], cookie: request.headers().cookie }))
  })
  await tab.goto(`${origin}/`)
  await tab.waitForFunction(ready)
  await tab.click('#crash')
  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === 1, 15_000, 50)
  await tab.reload()
  await tab.waitForFunction(ready)
  await tab.waitForTimeout(500)
  t.same(pings, [{ status: 204, key: stack.ingestKey, cookie: undefined }], 'init pinged the service once in this tab session, with the ingest key')

  t.match(await driveFirefox(`${origin}/`, '#crash'), /Firefox\/\d+/, 'Firefox ESR opened the build and clicked')
  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === 2, 15_000, 50)

  const line = lineOf(`${fixture}/${source}`, 'the TypeError is thrown here')
  const { rows } = await stack.db.query<{ agent: string; type: string; debug_ids: Record<string, string>; release: string | null; frames: StackFrame[]; issue_id: string }>(
    `SELECT payload->'context'->>'user_agent' AS agent, payload->'error'->>'type' AS type, payload->'debug_ids' AS debug_ids, payload->>'release' AS release,
            grouping->'frames' AS frames, issue_id FROM events ORDER BY received_at`,
  )
  t.same(rows.map((row) => /Firefox/.test(row.agent)), [false, true], 'one event from Chromium, then one from Firefox')
  for (const row of rows) {
    const engine = /Firefox/.test(row.agent) ? 'Firefox' : 'Chromium'
    t.equal(row.type, 'TypeError', `${engine}: the error as thrown`)
    t.same(row.debug_ids, { [`${origin}/${chunk}`]: debugId }, `${engine}: the SDK sent the debug id of the chunk in its stack`)
    t.equal(row.release, null, `${engine}: no release, so only the debug id can have found the map`)
    const top = row.frames.find((frame) => frame.inApp)
    t.match(top, { file: `${origin}/${chunk}`, original: { file: new RegExp(`(^|/)${source.replace('.', '\\.')}$`), line } }, `${engine}: the top in-app frame is ${source}:${line}`)
  }
  t.equal(rows[0]!.issue_id, rows[1]!.issue_id, 'both browsers\' errors are one issue')
  const { rows: issues } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM issues')
  t.equal(issues[0]!.n, 1)
}

t.test('a React app built with svc() reports a click handler\'s TypeError from Chromium and Firefox as src/App.tsx, one issue', (t) => buildClickAndCheck(t, 'vite-react', 'src/App.tsx'))

t.test('a Vue app built with svc() reports a click handler\'s TypeError from Chromium and Firefox as src/App.vue, one issue', (t) => buildClickAndCheck(t, 'vite-vue', 'src/App.vue'))
