import t from 'tap'
import type { Page } from 'playwright-core'
import { ensureSdkBuilt, launchChromium, sdkTestPage, servePages } from '../../helpers/browser/browser.js'
import { queuedEvents, startTestStack, waitFor, type TestStack } from '../../helpers/stack.js'

ensureSdkBuilt()

interface Stored {
  payload: {
    error: { type: string; message: string; stack: string }
    breadcrumbs: Array<{ type: string; message: string; data?: Record<string, unknown> }>
    context: { url: string; user_agent: string }
    sdk_version: string
    platform: string
    environment: string
    release: string
    session_id: string
    event_id: string
    user: { id: string }
  }
}

async function storedEvents(stack: TestStack, count: number): Promise<Stored[]> {
  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === count, 15_000, 50)
  const { rows } = await stack.db.query<Stored>('SELECT payload FROM events ORDER BY received_at')
  return rows
}

async function open(t: { teardown(fn: () => unknown): void }, stack: TestStack, config: Record<string, unknown>): Promise<Page> {
  const origin = await servePages(t, { '/': sdkTestPage({ apiKey: stack.ingestKey, endpoint: stack.baseUrl, ...config }) })
  const browser = await launchChromium(t)
  const context = await browser.newContext()
  // A cookie on the service's origin: the SDK must not send it (credentials omitted).
  await context.addCookies([{ name: 'app_session', value: 'do-not-send', url: stack.baseUrl }])
  const tab = await context.newPage()
  await tab.goto(`${origin}/`)
  await tab.waitForFunction(() => (globalThis as unknown as { svcReady?: boolean }).svcReady === true)
  return tab
}

t.test('in Chromium, an uncaught error and an unhandled rejection reach the service with context and breadcrumbs, without cookies', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const tab = await open(t, stack, { environment: 'production', release: 'shop@1.0.0' })
  const cookies: Array<string | undefined> = []
  tab.on('request', (request) => {
    if (request.url().startsWith(`${stack.baseUrl}/api/v1/events`) && request.method() === 'POST') void request.allHeaders().then((h) => cookies.push(h.cookie))
  })
  await tab.evaluate(() => (globalThis as unknown as { fetchWithToken(): Promise<void> }).fetchWithToken())
  await tab.click('#crash')
  await tab.evaluate(() => (globalThis as unknown as { rejectLater(): void }).rejectLater())
  const [crash, rejection] = await storedEvents(stack, 2)

  t.equal(crash!.payload.error.type, 'TypeError')
  t.match(crash!.payload.error.message, /items/)
  t.match(crash!.payload.error.stack, /onBuyClick/, 'the stack names the handler')
  t.equal(crash!.payload.platform, 'javascript')
  t.equal(crash!.payload.sdk_version, '0.1.0')
  t.equal(crash!.payload.environment, 'production')
  t.equal(crash!.payload.release, 'shop@1.0.0')
  t.same(crash!.payload.user, { id: 'user-7' })
  t.match(crash!.payload.context.user_agent, /Chrome/)
  t.match(crash!.payload.session_id, /^[0-9a-f-]{36}$/)
  t.equal(rejection!.payload.session_id, crash!.payload.session_id, 'one session id per tab')
  t.match(crash!.payload.event_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'each event carries its own UUID')
  t.not(rejection!.payload.event_id, crash!.payload.event_id)
  t.equal(rejection!.payload.error.type, 'RangeError')
  t.equal(rejection!.payload.error.message, 'async boom')

  const http = crash!.payload.breadcrumbs.find((b) => b.type === 'http')
  t.ok(http, 'the fetch before the error is a breadcrumb')
  t.match(http!.message, /^GET http:\/\/localhost:\d+\/missing\?token=%5Bredacted%5D&page=2$/, 'the token in its URL is masked')
  t.equal(http!.data?.status, 404)
  t.type(http!.data?.duration_ms, 'number')
  const click = crash!.payload.breadcrumbs.find((b) => b.type === 'click')
  t.equal(click?.message, 'button#crash.buy.primary', 'the click that caused it is a breadcrumb')
  t.notOk(crash!.payload.breadcrumbs.some((b) => b.message.includes('/api/v1/events')), 'the SDK does not record its own requests')

  await waitFor(async () => cookies.length >= 2, 5000, 20)
  t.same(cookies.filter(Boolean), [], 'no cookie went to the service')
  const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM issues')
  t.equal(rows[0]!.n, 2, 'two bugs, two issues')
})

t.test('in Chromium, a bad apiKey is swallowed by init, and said only with debug on', async (t) => {
  const stack = await startTestStack(t)
  for (const debug of [false, true]) {
    const tab = await open(t, stack, { apiKey: 'svc_pk_truncated', debug })
    const messages: string[] = []
    const pageErrors: string[] = []
    tab.on('console', (message) => messages.push(message.text()))
    tab.on('pageerror', (error) => pageErrors.push(error.message))
    await tab.evaluate(() => (globalThis as unknown as { throwNow(m: string): void }).throwNow('after a bad init'))
    await tab.waitForTimeout(300)
    t.same(pageErrors, ['after a bad init'], `debug ${debug}: the page's own error is untouched and the SDK threw nothing`)
    await tab.reload()
    await tab.waitForFunction(() => (globalThis as unknown as { svcReady?: boolean }).svcReady === true)
    const said = messages.filter((m) => m.startsWith('[svc]'))
    if (debug) t.match(said.join('\n'), /apiKey must be the ingest key/, 'with debug it says what is wrong')
    else t.same(said, [], 'without debug it says nothing')
  }
  t.equal(await queuedEvents(stack), 0, 'nothing was sent')
})

t.test('in Chromium, a 429 pauses sending for retry_after and an offline page queues until it is back online', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const tab = await open(t, stack, {})
  const attempts: number[] = []
  await tab.route(`${stack.baseUrl}/api/v1/events`, async (route) => {
    if (route.request().method() !== 'POST') return route.continue()
    attempts.push(Date.now())
    if (attempts.length === 1) {
      return route.fulfill({ status: 429, headers: { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'application/json' }, body: JSON.stringify({ code: 'rate_limited', message: 'wait', retry_after: 2 }) })
    }
    return route.continue()
  })
  await tab.evaluate(() => (globalThis as unknown as { throwNow(m: string): void }).throwNow('limited'))
  await storedEvents(stack, 1)
  t.equal(attempts.length, 2, 'sent again once')
  t.ok(attempts[1]! - attempts[0]! >= 1900, `and only after retry_after (${attempts[1]! - attempts[0]!} ms)`)

  await tab.context().setOffline(true)
  await tab.evaluate(() => (globalThis as unknown as { throwNow(m: string): void }).throwNow('while offline'))
  await tab.waitForTimeout(500)
  t.equal((await stack.db.query('SELECT 1 FROM events')).rowCount, 1, 'nothing arrives while offline')
  await tab.context().setOffline(false)
  const rows = await storedEvents(stack, 2)
  t.equal(rows[1]!.payload.error.message, 'while offline', 'the queued event arrives once back online')
})

t.test('in Chromium, an event whose answer was lost after the service queued it is sent again and stored once', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const tab = await open(t, stack, {})
  let attempts = 0
  await tab.route(`${stack.baseUrl}/api/v1/events`, async (route) => {
    if (route.request().method() !== 'POST') return route.continue()
    attempts++
    if (attempts > 1) return route.continue()
    // The service takes the first send (it is queued and will be stored), but its answer never
    // reaches the page: a connection cut after the write, as a proxy or a restart can do.
    await route.fetch()
    return route.abort('connectionreset')
  })
  await tab.evaluate(() => (globalThis as unknown as { throwNow(m: string): void }).throwNow('answer lost'))
  await waitFor(async () => attempts >= 2, 15_000, 50)
  await waitFor(async () => (await stack.worker!.services[0]!.depth()).eligible === 0, 10_000, 50)
  await tab.waitForTimeout(500)
  const rows = await storedEvents(stack, 1)
  t.equal(rows.length, 1, 'stored once, though it reached the service twice')
  t.equal(rows[0]!.payload.error.message, 'answer lost')
  t.equal(attempts, 2, 'the SDK sent it again once')
})

t.test('in Chromium, endpoint /svc sends through the app\'s own origin (a tunnel) and the event arrives', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const origin = await servePages(t, { '/': sdkTestPage({ apiKey: stack.ingestKey, endpoint: '/svc' }) }, { prefix: '/svc', target: stack.baseUrl })
  const browser = await launchChromium(t)
  const tab = await browser.newPage()
  const sentTo: string[] = []
  tab.on('request', (request) => {
    if (request.url().includes('/api/v1/events')) sentTo.push(`${request.method()} ${request.url()}`)
  })
  await tab.goto(`${origin}/`)
  await tab.waitForFunction(() => (globalThis as unknown as { svcReady?: boolean }).svcReady === true)
  await tab.evaluate(() => (globalThis as unknown as { throwNow(m: string): void }).throwNow('through the tunnel'))
  const [row] = await storedEvents(stack, 1)
  t.equal(row!.payload.error.message, 'through the tunnel')
  t.same(sentTo, [`POST ${origin}/svc/api/v1/events`], 'one same-origin request, no preflight, nothing sent to the service directly')
})
