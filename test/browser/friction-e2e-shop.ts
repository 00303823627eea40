/**
 * The fixture shop of friction-e2e.test.ts and its scripted shoppers: a cart page with a link on
 * to the payment page, whose "Pay now" button is dead (its click handler changes nothing anyone
 * can see). Every page runs the browser SDK with recording on.
 */
import type { Browser } from 'playwright-core'

/** One page of the shop: the SDK recording every session, the user told by ?user= and kept for the tab. */
function shopPage(config: Record<string, unknown>, body: string): string {
  return `<!doctype html><html><head><title>Shop</title></head><body>
${body}
<script type="module">
  import { init, setUser } from '/sdk/index.js'
  init(${JSON.stringify(config)})
  const user = sessionStorage.getItem('shop.user') || new URLSearchParams(location.search).get('user')
  sessionStorage.setItem('shop.user', user)
  setUser({ id: user })
  const pay = document.getElementById('pay')
  // The bug: the handler counts the click and does nothing else; no DOM change, no navigation.
  if (pay) pay.addEventListener('click', function onPayClick() { window.payClicks = (window.payClicks || 0) + 1 })
  await import('/sdk/recording.js')
  await new Promise((resolve) => setTimeout(resolve, 50))
  window.svcReady = true
</script></body></html>`
}

/** The shop's pages for servePages. */
export function deadPayShop(config: Record<string, unknown>): Record<string, string> {
  return {
    '/': shopPage(config, `<h1>Your cart</h1><p class="total">Total: 42.00 EUR</p><a id="next" href="/pay">Go to payment</a>`),
    '/pay': shopPage(config, `<h1>Payment</h1><p>Card ending 4242</p><button id="pay" class="primary">Pay now</button><p id="status"></p>`),
  }
}

const ready = (): boolean => (globalThis as unknown as { svcReady?: boolean }).svcReady === true

/**
 * One shopper in a browser context of their own (their own sessionStorage, so their own
 * recording): the cart, the payment page, then either five clicks on Pay 150 ms apart (a rage
 * click on a dead button) or none at all. The tab stays open long enough for the last click to be
 * judged (1 s of recording after it) and the last chunk to be flushed, then the context closes.
 */
export async function shop(browser: Browser, origin: string, user: string, rage: boolean): Promise<number> {
  const context = await browser.newContext()
  try {
    const tab = await context.newPage()
    await tab.goto(`${origin}/?user=${user}`)
    await tab.waitForFunction(ready)
    await tab.click('#next')
    await tab.waitForURL(`${origin}/pay`)
    await tab.waitForFunction(ready)
    await tab.waitForTimeout(300)
    if (rage) {
      for (let i = 0; i < 5; i++) {
        await tab.click('#pay')
        await tab.waitForTimeout(150)
      }
    }
    await tab.waitForTimeout(2500) // over 1 s of recording after the last click, and a flush interval
    const clicks = await tab.evaluate(() => (globalThis as unknown as { payClicks?: number }).payClicks ?? 0)
    if (await tab.locator('#status').textContent() !== '') throw new Error('the fixture\'s Pay button is meant to change nothing')
    return clicks
  } finally {
    await context.close() // the page hides: what is left goes with keepalive
  }
}

/** Runs each of items through work, at most limit at a time (the machine has two cores, and Chromium contexts are heavy). */
export async function inTurns<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++
      results[i] = await work(items[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane))
  return results
}
