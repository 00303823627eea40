import { fileURLToPath } from 'node:url'
import { buildSync } from 'esbuild'
import t from 'tap'
import { ensureSdkBuilt, launchChromium, servePages } from '../../helpers/browser/browser.js'
import { startTestStack, waitFor } from '../../helpers/stack.js'

ensureSdkBuilt()

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** A production React app built against the package's exports, as an app's bundler would. */
function reactApp(config: Record<string, unknown>): string {
  const source = `
import { useState } from 'react'
import { createRoot } from 'react-dom/client'
import { init } from '@svc/sdk'
import { SvcErrorBoundary } from '@svc/sdk/react'

init(${JSON.stringify(config)})

function Cart() {
  const [items, setItems] = useState<Array<{ price: number }> | undefined>([])
  return <button id="crash" onClick={() => setItems(undefined)}>{items!.length} items</button>
}

createRoot(document.getElementById('root')!).render(
  <SvcErrorBoundary fallback={(error, reset) => <p id="fallback" onClick={reset}>Something broke: {String((error as Error).message)}</p>}>
    <Cart />
  </SvcErrorBoundary>,
)
`
  const result = buildSync({ stdin: { contents: source, loader: 'tsx', resolveDir: ROOT, sourcefile: 'app.tsx' }, bundle: true, minify: true, format: 'esm', jsx: 'automatic', define: { 'process.env.NODE_ENV': '"production"' }, write: false, logLevel: 'error' })
  return result.outputFiles[0]!.text
}

t.test('in a production React build, SvcErrorBoundary reports the render error it catches and shows its fallback', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const origin = await servePages(t, {
    '/': '<!doctype html><div id="root"></div><script type="module" src="/app.js"></script>',
    '/app.js': reactApp({ apiKey: stack.ingestKey, endpoint: stack.baseUrl, environment: 'production' }),
  })
  const browser = await launchChromium(t)
  const tab = await browser.newPage()
  const pageErrors: string[] = []
  tab.on('pageerror', (error) => pageErrors.push(error.message))
  await tab.goto(`${origin}/`)
  await tab.click('#crash')
  await tab.waitForSelector('#fallback')
  t.match(await tab.textContent('#fallback'), /^Something broke: /, 'the fallback replaced the broken component')
  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === 1, 15_000, 50)
  const { rows } = await stack.db.query<{ type: string; message: string }>(`SELECT payload->'error'->>'type' AS type, payload->'error'->>'message' AS message FROM events`)
  t.equal(rows[0]!.type, 'TypeError')
  t.match(rows[0]!.message, /length/)
  await tab.waitForTimeout(300)
  t.equal((await stack.db.query('SELECT 1 FROM events')).rowCount, 1, 'reported once')
  t.same(pageErrors, [], 'a caught render error does not escape to the page')
})
