import { fileURLToPath } from 'node:url'
import { buildSync } from 'esbuild'
import t from 'tap'
import { ensureSdkBuilt, launchChromium, servePages } from '../../helpers/browser/browser.js'
import { startTestStack, waitFor } from '../../helpers/stack.js'

ensureSdkBuilt()

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** A production Vue app using svcVuePlugin, built against the package's exports. */
function vueApp(config: Record<string, unknown>): string {
  const source = `
import { createApp, h, ref } from 'vue'
import { svcVuePlugin } from '@svc/sdk'

const Cart = {
  setup() {
    const items = ref([])
    return () => h('button', { id: 'crash', onClick: () => { items.value = undefined } }, items.value.length + ' items')
  },
}
const app = createApp(Cart)
app.use(svcVuePlugin, ${JSON.stringify(config)})
app.mount('#root')
window.vueReady = true
`
  const result = buildSync({ stdin: { contents: source, loader: 'js', resolveDir: ROOT, sourcefile: 'app.js' }, bundle: true, minify: true, format: 'esm', define: { 'process.env.NODE_ENV': '"production"', __VUE_OPTIONS_API__: 'false', __VUE_PROD_DEVTOOLS__: 'false', __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false' }, write: false, logLevel: 'error' })
  return result.outputFiles[0]!.text
}

t.test('in a production Vue app, svcVuePlugin starts the SDK and reports an error from a component render', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const origin = await servePages(t, {
    '/': '<!doctype html><div id="root"></div><script type="module" src="/app.js"></script>',
    '/app.js': vueApp({ apiKey: stack.ingestKey, endpoint: stack.baseUrl, environment: 'production' }),
  })
  const browser = await launchChromium(t)
  const tab = await browser.newPage()
  const logged: string[] = []
  tab.on('console', (message) => logged.push(message.text()))
  await tab.goto(`${origin}/`)
  await tab.waitForFunction(() => (globalThis as unknown as { vueReady?: boolean }).vueReady === true)
  await tab.click('#crash')
  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === 1, 15_000, 50)
  const { rows } = await stack.db.query<{ type: string; message: string }>(`SELECT payload->'error'->>'type' AS type, payload->'error'->>'message' AS message FROM events`)
  t.equal(rows[0]!.type, 'TypeError')
  t.match(rows[0]!.message, /length/)
  t.ok(logged.some((line) => /length/.test(line)), 'with no handler of the app before it, the error is still logged as Vue would')
})
