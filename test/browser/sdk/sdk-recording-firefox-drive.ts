/**
 * Runs recording test steps (sdk-recording-steps.ts) in Firefox ESR over WebDriver BiDi with
 * puppeteer-core, in a process of its own (tap's module loader resolves chromium-bidi's package
 * exports wrongly; Node's does not). Usage: node --import tsx sdk-recording-firefox-drive.ts
 * <capture server address> <steps as JSON>. Prints the browser's user agent. The @sentry/browser
 * tests (sentry-sdk-browsers.test.ts) run their steps here too, with no capture server ('').
 */
import puppeteer from 'puppeteer-core'
import { PATIENCE_MS } from '../../helpers/patience.js'
import { runSteps, type Step } from './sdk-recording-steps.js'

const [capture, steps] = process.argv.slice(2)
const browser = await puppeteer.launch({ browser: 'firefox', executablePath: '/usr/bin/firefox-esr', headless: true })
try {
  const page = await browser.newPage()
  page.setDefaultTimeout(PATIENCE_MS)
  page.setDefaultNavigationTimeout(PATIENCE_MS)
  await runSteps(page, JSON.parse(steps!) as Step[], capture!)
  console.log(String(await page.evaluate('navigator.userAgent')))
} finally {
  await browser.close()
}
