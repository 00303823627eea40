/**
 * Apps on the real @sentry/react and @sentry/vue (package.json's versions, bundled by esbuild as a
 * production build would) switch to this service by changing only the DSN: Sentry.init gets the
 * stack's DSN (stackDsn) and nothing else of ours. Chromium only: the browser-specific paths
 * (the fetch transport, global handlers) are the ones sentry-sdk-browsers.test.ts already runs in
 * Firefox ESR too; what is new here is each framework's own capture, which does not vary by engine.
 * Each app's bug is hit on two page loads, so the second is not dropped by Sentry's Dedupe.
 */
import t, { type Test } from 'tap'
import type { Browser } from 'playwright-core'
import { launchChromium, servePages } from '../helpers/browser/browser.js'
import { stackDsn } from '../helpers/browser/sentry.js'
import { sentryApp } from '../helpers/browser/sentry-browser.js'
import { startTestStack, waitFor, type TestStack } from '../helpers/stack.js'

// Two stacks, one Chromium each, two page loads each: room for a loaded 2-core machine.
t.setTimeout(4 * 60_000)

/** A React app as Sentry's docs set it up: Sentry.init with the DSN, a render error caught by Sentry.ErrorBoundary with a fallback. */
function reactApp(dsn: string): Promise<string> {
  return sentryApp(
    `
import { useState } from 'react'
import { createRoot } from 'react-dom/client'
import * as Sentry from '@sentry/react'

Sentry.init({ dsn: ${JSON.stringify(dsn)} })

function Cart() {
  const [items, setItems] = useState<Array<{ price: number }> | undefined>([])
  return <button id="crash" onClick={() => setItems(undefined)}>{items!.length} items</button>
}

createRoot(document.getElementById('root')!).render(
  <Sentry.ErrorBoundary fallback={<p id="fallback">Something broke</p>}>
    <Cart />
  </Sentry.ErrorBoundary>,
)
;(window as unknown as { appReady: boolean }).appReady = true
`,
    'tsx',
  )
}

/** A Vue app as Sentry's docs set it up: Sentry.init({ app, dsn }) before mount; the component's render throws after a click. */
function vueApp(dsn: string): Promise<string> {
  return sentryApp(
    `
import { createApp, h, ref } from 'vue'
import * as Sentry from '@sentry/vue'

const Cart = {
  name: 'Cart',
  setup() {
    const items = ref([])
    return () => h('button', { id: 'crash', onClick: () => { items.value = undefined } }, items.value.length + ' items')
  },
}
const app = createApp(Cart)
Sentry.init({ app, dsn: ${JSON.stringify(dsn)} })
app.mount('#root')
window.appReady = true
`,
    'js',
  )
}

interface Sent {
  event: boolean
  status: number
}

/**
 * Loads the app in a fresh page and clicks #crash; resolves once an envelope holding an event was
 * answered, with every envelope the page sent (its session too) and the status that answered it.
 */
async function crashOnce(browser: Browser, origin: string, fallback: boolean): Promise<Sent[]> {
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    const sent: Sent[] = []
    page.on('response', (answer) => {
      if (!answer.url().includes('/envelope/')) return
      sent.push({ event: /"type":"event"/.test(answer.request().postData() ?? ''), status: answer.status() })
    })
    await page.goto(`${origin}/`)
    await page.waitForFunction(() => (globalThis as unknown as { appReady?: boolean }).appReady === true)
    await page.click('#crash')
    // Shown only if Sentry.ErrorBoundary caught the render error.
    if (fallback) await page.waitForSelector('#fallback')
    await waitFor(async () => sent.some((envelope) => envelope.event), 15_000, 50)
    return sent
  } finally {
    await context.close()
  }
}

/** The mechanism each SDK's framework hook stamps on what it catches. */
const MECHANISM = { react: 'auto.function.react.error_boundary', vue: 'auto.function.vue.error_handler' } as const

interface Row {
  issue_id: string
  type: string
  message: string
  sdk_version: string
  mechanism: string
}

/** Serves the app, hits its bug on two page loads, and checks what the stack stored. */
async function sendsTwiceIntoOneIssue(t: Test, stack: TestStack, app: string, sdk: 'react' | 'vue'): Promise<void> {
  const origin = await servePages(t, {
    '/': '<!doctype html><div id="root"></div><script type="module" src="/app.js"></script>',
    '/app.js': app,
  })
  const browser = await launchChromium(t)
  for (const load of [1, 2]) {
    const sent = await crashOnce(browser, origin, sdk === 'react')
    t.same(sent.filter((envelope) => envelope.event).map((envelope) => envelope.status), [200], `load ${load}: the error's envelope was answered 200`)
    t.same(sent.filter((envelope) => envelope.status !== 200), [], `load ${load}: so was every other envelope the page sent`)
    await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === load, 15_000, 50)
  }

  const { rows } = await stack.db.query<Row>(
    `SELECT issue_id, payload->'error'->>'type' AS type, payload->'error'->>'message' AS message, payload->>'sdk_version' AS sdk_version, payload->>'mechanism' AS mechanism FROM events ORDER BY received_at`,
  )
  t.equal(rows.length, 2, 'one event per page load')
  for (const [i, row] of rows.entries()) {
    t.match(row.sdk_version, new RegExp(`^sentry\\.javascript\\.${sdk}@\\d+\\.`), `event ${i + 1}: @sentry/${sdk}'s name and version`)
    t.equal(row.type, 'TypeError', `event ${i + 1}: the error's type`)
    t.equal(row.message, "Cannot read properties of undefined (reading 'length')", `event ${i + 1}: the error's message`)
    t.equal(row.mechanism, MECHANISM[sdk], `event ${i + 1}: caught by ${MECHANISM[sdk]}, not by the page's global handlers`)
    t.ok(row.issue_id, `event ${i + 1}: grouped into an issue`)
  }
  t.equal(rows[0]!.issue_id, rows[1]!.issue_id, 'the same bug twice is one issue')
  const { rows: issues } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM issues')
  t.equal(issues[0]!.n, 1, 'and no other issue was opened')
}

t.test('a React app on @sentry/react, given only our DSN, sends the render error Sentry.ErrorBoundary caught, and the same bug twice is one issue', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  await sendsTwiceIntoOneIssue(t, stack, await reactApp(await stackDsn(stack)), 'react')
})

t.test('a Vue app on @sentry/vue, given only our DSN, sends the render error its errorHandler caught, and the same bug twice is one issue', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  await sendsTwiceIntoOneIssue(t, stack, await vueApp(await stackDsn(stack)), 'vue')
})
