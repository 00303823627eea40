/**
 * Drives Firefox ESR over WebDriver BiDi (puppeteer-core) in a process of its own: tap's module
 * loader resolves chromium-bidi's package exports wrongly ("BidiMapper.js.js"), Node's does not.
 * Usage: node --import tsx firefox-drive.ts <page url> [selector to click]. Exits 0 once the page
 * has started the SDK, the click happened and the service answered the event it sent, and prints
 * the browser's user agent.
 */
import puppeteer from 'puppeteer-core'
import { PATIENCE_MS } from '../patience.js'

const [url, selector] = process.argv.slice(2)
const browser = await puppeteer.launch({ browser: 'firefox', executablePath: '/usr/bin/firefox-esr', headless: true })
try {
  const page = await browser.newPage()
  page.setDefaultTimeout(PATIENCE_MS)
  page.setDefaultNavigationTimeout(PATIENCE_MS)
  await page.goto(url!)
  await page.waitForFunction(() => (globalThis as unknown as { svcReady?: boolean }).svcReady === true)
  if (selector) {
    // The browser goes away only once the SDK's event was answered: a fixed pause lost it on a loaded machine.
    const answered = page.waitForResponse((response) => response.request().method() === 'POST' && new URL(response.url()).pathname === '/api/v1/events')
    await page.click(selector)
    await answered
  }
  console.log(await page.evaluate(() => (globalThis as unknown as { navigator: { userAgent: string } }).navigator.userAgent))
} finally {
  await browser.close()
}
