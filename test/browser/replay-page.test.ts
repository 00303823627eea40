import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser } from 'playwright-core'
import t from 'tap'
import { cookieName } from '../../services/web/dashboard/cookies.js'
import { createObjectStore } from '../../shared/object-store.js'
import { launchChromium } from '../helpers/browser.js'
import { approveNewProject, DashboardClient } from '../helpers/dashboard.js'
import { addAlert, click, pageLoad, seedRecording, svcError, type RrwebEvent } from '../helpers/recording-fixture.js'
import { startTestStack } from '../helpers/stack.js'
import { patience } from '../helpers/patience.js'

const T0 = Date.parse('2026-11-22T08:00:00.000Z')
/** Where the screenshots are kept for a person to look at (tmp/ is not committed). */
const SHOTS = fileURLToPath(new URL('../../tmp/screenshots/', import.meta.url))

/** A signed-in tab on the stack's dashboard, with every console message and page error it logs. */
async function signedInTab(browser: Browser, baseUrl: string, client: DashboardClient) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1400 } })
  await context.addCookies([{ name: cookieName('session', false), value: client.cookies.get(cookieName('session', false))!, url: baseUrl }])
  const tab = await context.newPage()
  const console: Array<{ type: string; text: string }> = []
  tab.on('console', (message) => console.push({ type: message.type(), text: message.text() }))
  tab.on('pageerror', (error) => console.push({ type: 'pageerror', text: error.message }))
  const dialogs: string[] = []
  tab.on('dialog', (dialog) => {
    dialogs.push(dialog.message())
    void dialog.dismiss()
  })
  return { tab, console, dialogs }
}

t.test('in Chromium, the session page replays the recording from the asked time, marks its timeline, and breaks no CSP', async (t) => {
  const stack = await startTestStack(t)
  const objects = await createObjectStore(stack.config.objectStore)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('dev@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')

  const cart = pageLoad(T0, 'https://shop.example.com/cart', { heading: 'Your cart', paragraph: 'Total: 42.00 EUR', button: 'Pay now' })
  const chunk0: RrwebEvent[] = [...cart.events, click(T0 + 12_000, cart.buttonId), addAlert(T0 + 12_050, cart.bodyId, 100, 'Payment failed: card declined'), svcError(T0 + 12_100, randomUUID(), 'Payment provider answered 502')]
  const pay = pageLoad(T0 + 20_000, 'https://shop.example.com/checkout/pay', { heading: 'Pay by card', paragraph: 'Card ending 4242', button: 'Retry' }, 200)
  const recordingId = await seedRecording(stack.db, objects, { projectId, user: { id: 'user-7' }, chunks: new Map([[0, chunk0], [1, [...pay.events, click(T0 + 25_000, pay.buttonId)]]]) })

  const browser = await launchChromium(t)
  const { tab, console, dialogs } = await signedInTab(browser, stack.baseUrl, client)
  const answer = await tab.goto(`${stack.baseUrl}/projects/${projectId}/recordings/${recordingId}?at=${T0 + 13_000}#replay`)
  t.equal(answer?.status(), 200)
  await tab.locator('#replay[data-ready="true"]').waitFor({ timeout: patience(15_000) })

  const frame = tab.frameLocator('#replay iframe')
  await frame.locator('[role="alert"]').waitFor({ timeout: patience(10_000) })
  t.equal(await frame.locator('h1').textContent(), 'Your cart', 'the recorded page is drawn in the player')
  t.equal(await frame.locator('.total').textContent(), 'Total: 42.00 EUR')
  t.equal(await frame.locator('[role="alert"]').textContent(), 'Payment failed: card declined', 'as it was at the asked time, after the click')
  t.equal(await tab.locator('#replay iframe').getAttribute('sandbox'), 'allow-same-origin', 'recorded content may not run scripts')
  t.match(await tab.locator('#replay-status').textContent(), /^Paused at 00:13 of 00:25\./, 'the page says where the replay stands')

  const marks = async (tag: string): Promise<number> => tab.locator(`#replay .rr-progress div[title="${tag}"]`).count()
  t.equal(await marks('svc.error'), 1, 'the error is marked on the timeline')
  t.equal(await marks('click'), 2, 'so are the clicks')
  t.equal(await marks('navigation'), 2, 'and the page loads')
  const red = await tab.locator('#replay .rr-progress div[title="svc.error"]').evaluate((mark) => (mark as unknown as { style: { background: string } }).style.background)
  t.match(red, 'rgb(217, 45, 32)', 'errors in red')

  mkdirSync(SHOTS, { recursive: true })
  const shot = join(SHOTS, 'replay-page.png')
  await tab.screenshot({ path: shot, fullPage: true })
  t.comment(`screenshot: ${shot}`)

  // A timeline link seeks the player without leaving the page.
  await tab.locator('ol.timeline a.at').nth(3).click()
  await frame.locator('h1', { hasText: 'Pay by card' }).waitFor({ timeout: patience(10_000) })
  t.equal(new URL(tab.url()).searchParams.get('at'), String(T0 + 13_000), 'no navigation happened')
  await tab.locator('#replay').screenshot({ path: join(SHOTS, 'replay-page-seeked.png') })

  t.same(console.filter((m) => /Content Security Policy|Refused to/i.test(m.text)), [], 'no CSP violation')
  t.same(console.filter((m) => m.type === 'error' || m.type === 'pageerror'), [], 'no script errors')
  t.same(dialogs, [])
})

t.test('in Chromium, a recording that carries script and handlers is replayed without running them', async (t) => {
  const stack = await startTestStack(t)
  const objects = await createObjectStore(stack.config.objectStore)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('dev@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')

  const load = pageLoad(T0, 'https://shop.example.com/<script>', { heading: '<img src=x onerror=alert(1)>', paragraph: 'Hostile', button: 'Go' })
  const snapshot = load.events[1]!.data.node as { childNodes: Array<{ childNodes?: Array<{ tagName?: string; childNodes: unknown[] }> }> }
  const body = snapshot.childNodes[1]!.childNodes!.find((node) => node.tagName === 'body')!
  // Elements a hostile page (or a forged chunk) can put in a recording.
  body.childNodes.push(
    { type: 2, tagName: 'script', attributes: {}, childNodes: [{ type: 3, textContent: 'top.alert("script")', id: 901 }], id: 900 },
    { type: 2, tagName: 'img', attributes: { src: 'data:,', onerror: 'top.alert("handler")' }, childNodes: [], id: 902 },
    { type: 2, tagName: 'a', attributes: { href: 'javascript:top.alert("link")', id: 'evil' }, childNodes: [{ type: 3, textContent: 'Evil link', id: 904 }], id: 903 },
  )
  const recordingId = await seedRecording(stack.db, objects, { projectId, userLabel: '<img src=x onerror=alert(5)>', chunks: new Map([[0, [...load.events, svcError(T0 + 1000, randomUUID(), '<svg onload=alert(6)>')]]]) })

  const browser = await launchChromium(t)
  const { tab, dialogs, console } = await signedInTab(browser, stack.baseUrl, client)
  await tab.goto(`${stack.baseUrl}/projects/${projectId}/recordings/${recordingId}`)
  await tab.locator('#replay[data-ready="true"]').waitFor({ timeout: patience(15_000) })
  const frame = tab.frameLocator('#replay iframe')
  await frame.locator('#evil').waitFor({ timeout: patience(10_000) })
  t.equal(await frame.locator('h1').textContent(), '<img src=x onerror=alert(1)>', 'recorded text stays text')
  // An alert would block the page: the evaluate after the click returns only once it was dismissed.
  await frame.locator('#evil').click({ force: true })
  await tab.evaluate(() => true)
  t.same(dialogs, [], 'no recorded script, handler or javascript: link ran')
  const errors = console.filter((m) => m.type === 'error' || m.type === 'pageerror').map((m) => m.text)
  t.ok(errors.length > 0 && errors.every((text) => /frame is sandboxed and the 'allow-scripts' permission is not set/.test(text)), 'what tried to run was stopped by the sandbox, and nothing else went wrong')
  t.equal(await tab.locator('h1').first().textContent(), 'Session of <img src=x onerror=alert(5)>', 'the page shows the label as text')
})
