import t from 'tap'
import { driveFirefox, ensureSdkBuilt, launchChromium, sdkTestPage, servePages } from '../../helpers/browser/browser.js'
import { startTestStack, waitFor } from '../../helpers/stack.js'

ensureSdkBuilt()
// Firefox ESR and Chromium both start here: on a 2-core machine at a load average of 15 this file
// took 112 s, close to tap's 120 s for a file.
t.setTimeout(4 * 60_000)

t.test('the same bug thrown in Firefox ESR and in Chromium is captured by both and lands in one issue', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  // 127.0.0.1, not localhost: Firefox tries ::1 first, where the page server does not listen.
  const origin = (await servePages(t, { '/': sdkTestPage({ apiKey: stack.ingestKey, endpoint: stack.baseUrl, environment: 'production' }) })).replace('localhost', '127.0.0.1')
  const ready = (): boolean => (globalThis as unknown as { svcReady?: boolean }).svcReady === true

  t.match(await driveFirefox(`${origin}/`, '#crash'), /Firefox\/\d+/, 'Firefox ESR opened the page and clicked')
  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === 1, 15_000, 50)

  const chromium = await launchChromium(t)
  const chTab = await chromium.newPage()
  await chTab.goto(`${origin}/`)
  await chTab.waitForFunction(ready)
  await chTab.click('#crash')
  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === 2, 15_000, 50)

  const { rows } = await stack.db.query<{ agent: string; message: string; stack: string; issue_id: string }>(
    `SELECT payload->'context'->>'user_agent' AS agent, payload->'error'->>'message' AS message, payload->'error'->>'stack' AS stack, issue_id FROM events ORDER BY received_at`,
  )
  t.match(rows[0]!.agent, /Firefox/, 'the first came from Firefox')
  t.match(rows[0]!.stack, /onBuyClick@/, 'in SpiderMonkey stack format')
  t.match(rows[1]!.agent, /Chrome/, 'the second from Chromium')
  t.match(rows[1]!.stack, /at HTMLButtonElement\.onBuyClick|at onBuyClick/, 'in V8 stack format')
  t.not(rows[0]!.message, rows[1]!.message, 'the engines word the error differently')
  t.equal(rows[0]!.issue_id, rows[1]!.issue_id, 'and still it is one issue')
  const { rows: issues } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM issues')
  t.equal(issues[0]!.n, 1)
})
