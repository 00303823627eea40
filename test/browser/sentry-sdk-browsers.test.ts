/**
 * The real @sentry/browser (package.json's version, bundled by esbuild) in Debian's Chromium and
 * Firefox ESR, sending to the stack through the DSN the service shows (stackDsn), with Sentry.init's
 * default integrations. The pages and the stamped chunk are in test/helpers/browser/sentry-browser.ts; the
 * steps run as the recorder's tests run theirs (sdk-recording-steps.ts): playwright-core drives
 * Chromium in this process, puppeteer-core drives Firefox in a child.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import type { Browser } from 'playwright-core'
import { ensureSdkBuilt, launchChromium, servePages } from '../helpers/browser/browser.js'
import { scrape } from '../helpers/metrics.js'
import { patience } from '../helpers/patience.js'
import { stackDsn } from '../helpers/browser/sentry.js'
import { BUG_MODULE, sentryBundle, sentryPage, stampedChunk, svcPage } from '../helpers/browser/sentry-browser.js'
import { startTestStack, waitFor, type TestStack } from '../helpers/stack.js'
import { runSteps, type Step } from './sdk/sdk-recording-steps.js'

ensureSdkBuilt()
// Each test starts Chromium and Firefox ESR and opens four pages: room for a loaded 2-core machine.
t.setTimeout(6 * 60_000)

const SENTRY = await sentryBundle()
const ENGINES = ['Chromium', 'Firefox ESR'] as const
type Engine = (typeof ENGINES)[number]

/** Runs the steps in a fresh Chromium context or a fresh Firefox ESR; resolves with the browser's user agent. */
async function drive(engine: Engine, chromium: Browser, steps: Step[]): Promise<string> {
  if (engine === 'Chromium') {
    const context = await chromium.newContext()
    try {
      const page = await context.newPage()
      await runSteps(page, steps, '')
      return String(await page.evaluate('navigator.userAgent'))
    } finally {
      await context.close()
    }
  }
  const env: NodeJS.ProcessEnv = { ...process.env }
  delete env.NODE_OPTIONS
  const driver = fileURLToPath(new URL('./sdk/sdk-recording-firefox-drive.ts', import.meta.url))
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', driver, '', JSON.stringify(steps)], { env, encoding: 'utf8', timeout: patience(90_000) })
  return stdout.trim()
}

const eventCount = async (stack: TestStack): Promise<number> => Number((await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]!.n)

interface Row {
  issue_id: string
  release: string | null
  payload: {
    error: { type: string; message: string }
    sdk_version: string
    environment?: string
    user?: { id: string }
    tags?: Record<string, string>
    context: { user_agent: string }
    breadcrumbs: Array<{ type: string; message: string }>
  }
}

t.test('in Chromium and Firefox ESR, @sentry/browser\'s uncaught error and unhandled rejection arrive with their context, each in the issue @svc/sdk opened for the same bug, and its sessions are taken and dropped', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const dsn = await stackDsn(stack)
  // 127.0.0.1, not localhost: Firefox tries ::1 first, where the page server does not listen.
  const origin = (
    await servePages(t, {
      '/svc': svcPage({ apiKey: stack.ingestKey, endpoint: stack.baseUrl, environment: 'production', release: 'shop@1.0.0' }),
      '/sentry': sentryPage({ dsn, environment: 'production', release: 'shop@1.0.0' }),
      '/app/bug.js': BUG_MODULE,
      '/vendor/sentry.js': SENTRY,
    })
  ).replace('localhost', '127.0.0.1')
  const chromium = await launchChromium(t)
  const dropped = async (): Promise<number> => (await scrape(`${stack.baseUrl}/metrics`)).value('svc_ingress_sentry_items_dropped_total', { type: 'session' })
  const droppedBefore = await dropped()

  let expected = 0
  for (const engine of ENGINES) {
    const agent = await drive(engine, chromium, [
      { goto: `${origin}/svc` },
      { ready: true },
      { click: '#crash' },
      { run: 'window.rejectLater()' },
      { run: 'window.untilAnswered(2)' },
      { goto: `${origin}/sentry` },
      { ready: true },
      // The session Sentry sends when the page loads, answered 200 like the events after it.
      { run: "window.untilSent('session', 1)" },
      { click: '#crash' },
      { run: "window.untilSent('event', 1)" },
      { run: 'window.rejectLater()' },
      { run: "window.untilSent('event', 2)" },
      { run: "if (window.sentryErrors.length > 0) throw new Error('the page logged: ' + window.sentryErrors.join('; '))" },
    ])
    t.match(agent, engine === 'Chromium' ? /Chrome\// : /Firefox\/\d+/, `${engine} ran both pages, and every envelope was answered 200`)
    expected += 4
    await waitFor(async () => (await eventCount(stack)) === expected, 15_000, 50)
  }
  t.ok((await dropped()) - droppedBefore >= 2, 'a session item from each browser was counted as dropped')

  const { rows } = await stack.db.query<Row>('SELECT issue_id, release, payload FROM events ORDER BY received_at')
  t.equal(rows.length, 8, 'four events from each browser: two from each SDK')
  const sentry = rows.filter((row) => row.payload.sdk_version.startsWith('sentry.javascript.browser@'))
  const ours = rows.filter((row) => !sentry.includes(row))
  t.equal(sentry.length, 4, 'two events from @sentry/browser in each browser')
  for (const row of sentry) {
    const engine = /Firefox/.test(row.payload.context.user_agent) ? 'Firefox ESR' : 'Chromium'
    t.match(row.payload.sdk_version, /^sentry\.javascript\.browser@11\./, `${engine}: the Sentry SDK's name and version`)
    t.equal(row.release, 'shop@1.0.0', `${engine}: release`)
    t.equal(row.payload.environment, 'production', `${engine}: environment`)
    t.same(row.payload.user, { id: 'user-7' }, `${engine}: user`)
    t.same(row.payload.tags, { team: 'checkout' }, `${engine}: tags`)
    t.ok(row.payload.breadcrumbs.some((b) => b.type === 'console' && b.message === 'cart opened'), `${engine}: the console line before it is a breadcrumb`)
  }
  const crashes = sentry.filter((row) => row.payload.error.type === 'TypeError')
  const rejections = sentry.filter((row) => row.payload.error.type === 'RangeError')
  t.equal(crashes.length, 2, 'the uncaught TypeError from each browser')
  t.same(rejections.map((row) => row.payload.error.message), ['async boom', 'async boom'], 'the unhandled rejection from each browser')
  for (const crash of crashes) t.ok(crash.payload.breadcrumbs.some((b) => b.type === 'click' && /button#crash/.test(b.message)), 'the click that caused it is a breadcrumb')

  for (const [bug, type] of [['the click handler\'s TypeError', 'TypeError'], ['the unhandled rejection', 'RangeError']] as const) {
    const svcIssues = new Set(ours.filter((row) => row.payload.error.type === type).map((row) => row.issue_id))
    const sentryIssues = new Set(sentry.filter((row) => row.payload.error.type === type).map((row) => row.issue_id))
    t.equal(svcIssues.size, 1, `${bug} from @svc/sdk in both browsers is one issue`)
    t.same([...sentryIssues], [...svcIssues], `${bug} from @sentry/browser in both browsers joins that issue`)
  }
  const { rows: issues } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM issues')
  t.equal(issues[0]!.n, 2, 'two bugs, two issues')
})

t.test('in Chromium and Firefox ESR, a chunk stamped with a debug id, served under another path and with no release, resolves to its original source through the map uploaded with that id', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const dir = mkdtempSync(join(tmpdir(), 'svc-sentry-stamped-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const debugId = crypto.randomUUID()
  const chunk = await stampedChunk(dir, debugId)

  const cli = fileURLToPath(new URL('../../sdk/bin/svc-sourcemaps.mjs', import.meta.url))
  const upload = await promisify(execFile)(process.execPath, [cli, dir, '--keep-maps', '--release', 'build-42', '--endpoint', stack.baseUrl], { env: { ...process.env, SVC_SOURCEMAP_KEY: await stack.mint('sourcemap') }, encoding: 'utf8' })
  t.match(upload.stdout, `uploaded /assets/checkout.js (release build-42) (debug id ${debugId})`, 'svc-sourcemaps read the debug id from the map')
  const { rows: maps } = await stack.db.query<{ url_path: string; release: string; debug_id: string }>('SELECT url_path, release, debug_id FROM sourcemaps')
  t.same(maps, [{ url_path: '/assets/checkout.js', release: 'build-42', debug_id: debugId }], 'filed under its build path and a release the page never names, with the debug id')

  const served = '/static/js/main.8c1e.js'
  const origin = (
    await servePages(t, {
      '/': sentryPage({ dsn: await stackDsn(stack) }, `<script src="${served}"></script>`),
      '/app/bug.js': BUG_MODULE,
      '/vendor/sentry.js': SENTRY,
      [served]: chunk,
    })
  ).replace('localhost', '127.0.0.1')
  const chromium = await launchChromium(t)
  for (const [i, engine] of ENGINES.entries()) {
    await drive(engine, chromium, [{ goto: `${origin}/` }, { ready: true }, { run: 'window.applyCouponLater()' }, { run: "window.untilSent('event', 1)" }])
    await waitFor(async () => (await eventCount(stack)) === i + 1, 15_000, 50)
  }

  const line = readFileSync(join(dir, 'src/checkout.js'), 'utf8').split('\n').findIndex((text) => text.includes('cart.coupon.code')) + 1
  const { rows } = await stack.db.query<{ agent: string; release: string | null; debug_ids: Record<string, string>; frames: Array<{ file: string; inApp: boolean; original?: { file: string; line: number } }>; issue_id: string }>(
    `SELECT payload->'context'->>'user_agent' AS agent, release, payload->'debug_ids' AS debug_ids, grouping->'frames' AS frames, issue_id FROM events ORDER BY received_at`,
  )
  t.same(rows.map((row) => /Firefox/.test(row.agent)), [false, true], 'one event from Chromium, then one from Firefox')
  for (const row of rows) {
    const engine = /Firefox/.test(row.agent) ? 'Firefox ESR' : 'Chromium'
    t.equal(row.release, null, `${engine}: no release, so only the debug id can find the map`)
    t.same(row.debug_ids, { [`${origin}${served}`]: debugId }, `${engine}: debug_meta's image for the served chunk became debug_ids`)
    const top = row.frames.find((frame) => frame.inApp)
    t.match(top, { file: `${origin}${served}`, original: { file: /(^|\/)src\/checkout\.js$/, line } }, `${engine}: the throw resolves to src/checkout.js:${line}`)
  }
  t.equal(rows[0]!.issue_id, rows[1]!.issue_id, 'one issue from both browsers')
})
