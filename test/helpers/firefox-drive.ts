/**
 * Drives Firefox ESR over WebDriver BiDi (puppeteer-core) in a process of its own: tap's module
 * loader resolves chromium-bidi's package exports wrongly ("BidiMapper.js.js"), Node's does not.
 * Usage: node --import tsx firefox-drive.ts <page url> [selector to click]. Exits 0 once the page
 * has started the SDK and the click happened, and prints the browser's user agent.
 */
import puppeteer from 'puppeteer-core'

const [url, selector] = process.argv.slice(2)
const browser = await puppeteer.launch({ browser: 'firefox', executablePath: '/usr/bin/firefox-esr', headless: true })
try {
  const page = await browser.newPage()
  await page.goto(url!)
  await page.waitForFunction(() => (globalThis as unknown as { svcReady?: boolean }).svcReady === true)
  if (selector) await page.click(selector)
  // Let the SDK's request leave before the browser goes away.
  await new Promise((resolve) => setTimeout(resolve, 1000))
  console.log(await page.evaluate(() => (globalThis as unknown as { navigator: { userAgent: string } }).navigator.userAgent))
} finally {
  await browser.close()
}
