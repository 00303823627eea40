import { readFileSync } from 'node:fs'
import t from 'tap'
import { ensureSdkBuilt, launchChromium, servePages } from '../../helpers/browser/browser.js'
import { SEED_INGEST_KEY } from '../../../shared/db/seed.js'
import { startTestStack, waitFor } from '../../helpers/stack.js'

ensureSdkBuilt()

t.test("sdk/README.md's opening example runs in Chromium and its error reaches the service", async (t) => {
  const readme = readFileSync(new URL('../../../sdk/README.md', import.meta.url), 'utf8')
  const example = /^```js\n([\s\S]*?)^```/m.exec(readme)?.[1]
  t.ok(example, 'the README opens with a js example')
  const stack = await startTestStack(t, { worker: true })
  t.ok(example!.includes(SEED_INGEST_KEY) && example!.includes("'http://localhost:8082'"), 'it names a key and an address to swap for the test stack')
  const script = example!.replace(SEED_INGEST_KEY, stack.ingestKey).replace("'http://localhost:8082'", JSON.stringify(stack.baseUrl))
  // An import map stands in for the bundler that resolves '@svc/sdk' in an app.
  const html = `<!doctype html><script type="importmap">{"imports":{"@svc/sdk":"/sdk/index.js"}}</script><script type="module">${script}</script>`
  const origin = await servePages(t, { '/': html })
  const browser = await launchChromium(t)
  const tab = await browser.newPage()
  const pageErrors: string[] = []
  tab.on('pageerror', (error) => pageErrors.push(error.message))
  await tab.goto(`${origin}/`)
  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === 1, 15_000, 50)
  const { rows } = await stack.db.query<{ payload: { error: { type: string }; user: { id: string }; release: string; environment: string } }>('SELECT payload FROM events')
  t.equal(rows[0]!.payload.error.type, 'SyntaxError')
  t.same(rows[0]!.payload.user, { id: 'user-42' })
  t.equal(rows[0]!.payload.release, 'shop@1.4.2')
  t.equal(rows[0]!.payload.environment, 'production')
  t.same(pageErrors, [], 'the example throws nothing into the page')
})
