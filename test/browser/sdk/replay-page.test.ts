import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import t from 'tap'
import { cookieName } from '../../../services/web/http/cookies.js'
import { createObjectStore } from '../../../shared/object-store.js'
import { launchChromium } from '../../helpers/browser/browser.js'
import { approveNewProject, DashboardClient } from '../../helpers/dashboard.js'
import { addAlert, click, pageLoad, seedRecording, svcError, type RrwebEvent } from '../../helpers/browser/recording-fixture.js'
import { startTestStack } from '../../helpers/stack.js'
import { patience } from '../../helpers/patience.js'

const T0 = Date.parse('2026-11-22T08:00:00.000Z')
/** Where the screenshots are kept for a person to look at (tmp/ is not committed). */
const SHOTS = fileURLToPath(new URL('../../../tmp/screenshots/', import.meta.url))

/** Element node of an rrweb snapshot. */
function element(id: number, tagName: string, attributes: Record<string, string>, childNodes: unknown[] = []): Record<string, unknown> {
  return { type: 2, tagName, attributes, childNodes, id }
}

/** The head and body of a pageLoad's snapshot, to add nodes to. */
function headAndBody(load: { events: RrwebEvent[] }): { head: unknown[]; body: unknown[] } {
  const html = (load.events[1]!.data.node as { childNodes: Array<{ childNodes?: Array<{ tagName?: string; childNodes: unknown[] }> }> }).childNodes[1]!.childNodes!
  return { head: html.find((node) => node.tagName === 'head')!.childNodes, body: html.find((node) => node.tagName === 'body')!.childNodes }
}

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
  t.same(console, [], 'nothing even tried to run: the service took the handler and the javascript: link out, and the sandbox is there besides')
  t.equal(await tab.locator('h1').first().textContent(), 'Session of <img src=x onerror=alert(5)>', 'the page shows the label as text')
})

t.test("in Chromium, a replay of a page with inline handlers, javascript: URLs and the recorded site's images logs nothing, and its status follows play, pause, seek and the end", async (t) => {
  const stack = await startTestStack(t)
  const objects = await createObjectStore(stack.config.objectStore)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('dev@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')

  // As earlier builds of the SDK recorded it: handlers and javascript: URLs in; and as every SDK records
  // a page: its images, fonts and stylesheets by their address on the recorded site.
  const load = pageLoad(T0, 'https://shop.example.com/checkout', { heading: 'Checkout', paragraph: 'Total: 42.00 EUR', button: 'Pay now' })
  const { head, body } = headAndBody(load)
  head.push(
    element(300, 'link', { rel: 'stylesheet', href: 'https://fonts.example.com/css?family=Shop' }),
    element(301, 'style', { _cssText: '@import url("https://cdn.example.com/theme.css"); @font-face { font-family: Shop; src: url(https://fonts.example.com/shop.woff2) format("woff2") } h1 { font-family: Shop, sans-serif } .hero { height: 40px; background: url(https://cdn.example.com/hero.jpg) #fde68a }' }),
  )
  body.push(
    element(310, 'form', { onsubmit: 'return false', action: '/pay' }, [element(311, 'button', { type: 'submit', id: 'submit', onclick: 'track("submit")' }, [{ type: 3, textContent: 'Submit', id: 312 }])]),
    element(313, 'a', { href: 'javascript:void(0)', id: 'coupon', onmouseover: 'hint()' }, [{ type: 3, textContent: 'Apply coupon', id: 314 }]),
    element(315, 'div', { class: 'hero', style: 'background-image: url(https://cdn.example.com/banner.png)' }),
    element(316, 'img', { id: 'product', src: 'https://shop.example.com/img/mug.jpg', srcset: 'https://shop.example.com/img/mug@2x.jpg 2x', alt: 'Blue mug', width: '120', height: '80' }),
    element(317, 'img', { id: 'logo', src: '//cdn.example.com/logo.svg', onerror: 'this.remove()' }),
  )
  const later: RrwebEvent[] = [
    click(T0 + 2000, load.buttonId),
    {
      type: 3,
      timestamp: T0 + 3000,
      data: {
        source: 0,
        texts: [],
        removes: [],
        attributes: [{ id: 313, attributes: { href: 'javascript:apply()' } }, { id: load.buttonId, attributes: { onclick: 'pay()' } }],
        adds: [{ parentId: load.bodyId, nextId: null, node: element(320, 'img', { id: 'banner', src: 'https://shop.example.com/img/banner.jpg', onload: 'seen()', alt: 'Banner', width: '200', height: '50' }) }],
      },
    },
    { type: 3, timestamp: T0 + 4000, data: { source: 8, id: 301, adds: [{ rule: '.late { background: url(https://cdn.example.com/late.png) }', index: 0 }] } },
    click(T0 + 5000, load.buttonId),
    addAlert(T0 + 6000, load.bodyId, 400, 'Payment failed'),
  ]
  const recordingId = await seedRecording(stack.db, objects, { projectId, user: { id: 'user-9' }, chunks: new Map([[0, [...load.events, ...later]]]) })

  const browser = await launchChromium(t)
  const { tab, console, dialogs } = await signedInTab(browser, stack.baseUrl, client)
  await tab.goto(`${stack.baseUrl}/projects/${projectId}/recordings/${recordingId}`)
  await tab.locator('#replay[data-ready="true"]').waitFor({ timeout: 15_000 })
  const frame = tab.frameLocator('#replay iframe')
  await frame.locator('#product').waitFor({ state: 'attached', timeout: 10_000 })
  const status = tab.locator('#replay-status')
  t.match(await status.textContent(), /^Paused at 00:00 of 00:06\./, 'opened paused at the start')

  const drawn = await frame.locator('html').evaluate((html) => {
    const all = Array.from((html as unknown as { querySelectorAll(s: string): ArrayLike<{ tagName: string; attributes: ArrayLike<{ name: string; value: string }> }> }).querySelectorAll('*'))
    return all.flatMap((el) => Array.from(el.attributes).filter((a) => /^_?on/i.test(a.name) || /javascript:|example\.com/i.test(a.value)).map((a) => `${el.tagName.toLowerCase()} ${a.name}=${a.value}`))
  })
  t.same(drawn, [], 'the drawn page holds no handler, no javascript: URL and no address on the recorded site')
  const product = await frame.locator('#product').evaluate((img) => {
    const box = (img as unknown as { getBoundingClientRect(): { width: number; height: number } }).getBoundingClientRect()
    const attribute = (name: string): string | null => (img as unknown as { getAttribute(n: string): string | null }).getAttribute(name)
    return { width: box.width, height: box.height, src: attribute('src'), alt: attribute('alt'), title: attribute('title'), background: (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(img).backgroundColor }
  })
  t.same(product, { width: 120, height: 80, src: null, alt: null, title: null, background: 'rgb(229, 231, 235)' }, "the recorded site's image is a plain grey box of its size")

  // Play, pause, seek, and the end: the status line follows each.
  const playButton = tab.locator('#replay .rr-controller__btns button').first()
  await playButton.click()
  await waitForStatus(tab, /^Playing at 00:0[1-6] of 00:06\./)
  await playButton.click()
  await waitForStatus(tab, /^Paused at 00:0[1-6] of 00:06\./)
  const bar = await tab.locator('#replay .rr-progress').boundingBox()
  await tab.mouse.click(bar!.x + bar!.width / 2, bar!.y + bar!.height / 2)
  await waitForStatus(tab, /^Paused at 00:03 of 00:06\./)
  await playButton.click()
  await waitForStatus(tab, /^Ended at 00:06 of 00:06\./)
  await frame.locator('[role="alert"]').waitFor({ timeout: 5000 })
  t.equal(await frame.locator('#banner').getAttribute('src'), null, 'an image added later is drawn without its address too')
  t.equal(await frame.locator('#coupon').getAttribute('href'), null, 'and a link changed to a javascript: URL has none')
  mkdirSync(SHOTS, { recursive: true })
  await tab.locator('#replay').screenshot({ path: join(SHOTS, 'replay-page-clean.png') })

  t.same(console, [], 'an empty console: no blocked script, no CSP violation, no error')
  t.same(dialogs, [])
})

/** Waits until the replay's status line matches, failing with what it says. */
async function waitForStatus(tab: Page, pattern: RegExp): Promise<void> {
  try {
    await tab.locator('#replay-status').filter({ hasText: pattern }).waitFor({ timeout: 15_000 })
  } catch {
    throw new Error(`the status line says ${JSON.stringify(await tab.locator('#replay-status').textContent())}, not ${pattern}`)
  }
}
