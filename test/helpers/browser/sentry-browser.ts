/**
 * Pages for the real @sentry/browser in real browsers (test/browser/sentry-sdk-browsers.test.ts):
 * the package bundled by esbuild as an app's build would bundle it, one app module whose bugs both
 * SDKs' pages share (so the file, line and function of the throw are the same), a page for each
 * SDK, and an app chunk stamped with a debug id the way sentry-cli's `sourcemaps inject` does.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { PATIENCE_MS } from '../patience.js'

const REPO = fileURLToPath(new URL('../../../', import.meta.url))

/** @sentry/browser (from the repository's node_modules) as one browser ES module. */
export async function sentryBundle(): Promise<string> {
  const result = await build({
    stdin: { contents: "export * from '@sentry/browser'", resolveDir: REPO, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    minify: true,
    write: false,
    logLevel: 'silent',
  })
  return result.outputFiles[0]!.text
}

/**
 * An app's entry (JS or TSX, importing @sentry/react, @sentry/vue, react or vue from the
 * repository's node_modules) bundled into one browser ES module the way a production build would.
 */
export async function sentryApp(source: string, loader: 'js' | 'tsx'): Promise<string> {
  const result = await build({
    stdin: { contents: source, loader, resolveDir: REPO, sourcefile: `app.${loader}` },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    minify: true,
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"', __VUE_OPTIONS_API__: 'false', __VUE_PROD_DEVTOOLS__: 'false', __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false' },
    write: false,
    logLevel: 'silent',
  })
  return result.outputFiles[0]!.text
}

/** The app's code both SDK pages load from /app/bug.js: a click handler that reads undefined, and a rejection nobody handles. */
export const BUG_MODULE = `export function onBuyClick() { const cart = undefined; return cart.items.length }
export function rejectLater() { Promise.reject(new RangeError('async boom')) }
`

/**
 * In-page: resolves once read() gives count answers, rejects once one of them is not ok, or
 * after PATIENCE_MS with what it saw (a page's evaluate has no timeout of its own).
 */
const UNTIL = `(read, count, ok) => new Promise((resolve, reject) => {
    const deadline = Date.now() + ${PATIENCE_MS}
    const check = () => {
      const list = read()
      const bad = list.filter((answer) => !ok(answer))
      if (bad.length > 0) reject(new Error('a send failed: ' + JSON.stringify(bad)))
      else if (list.length >= count) resolve(list.length)
      else if (Date.now() > deadline) reject(new Error('waited for ' + count + ' answers, saw ' + JSON.stringify(list)))
      else setTimeout(check, 50)
    }
    check()
  })`

/**
 * The page that starts @svc/sdk (served under /sdk/) with config. It keeps the status of each
 * answer to the SDK's event requests (the SDK takes window.fetch at init), and
 * `untilAnswered(n)` waits for n of them, failing on any that is not a 2xx.
 */
export function svcPage(config: Record<string, unknown>): string {
  return `<!doctype html><html><body>
<button id="crash" class="buy">Buy</button>
<script type="module">
  import { init, setUser } from '/sdk/index.js'
  import { onBuyClick, rejectLater } from '/app/bug.js'
  const answers = []
  const pageFetch = window.fetch
  window.fetch = async (url, options) => {
    const answer = await pageFetch(url, options).catch((error) => { answers.push(String(error)); throw error })
    if (String(url).includes('/api/v1/events')) answers.push(answer.status)
    return answer
  }
  init(${JSON.stringify(config)})
  setUser({ id: 'user-7' })
  document.getElementById('crash').addEventListener('click', onBuyClick)
  window.rejectLater = rejectLater
  window.untilAnswered = (count) => (${UNTIL})(() => answers, count, (answer) => answer >= 200 && answer < 300)
  window.svcReady = true
</script></body></html>`
}

/**
 * The page that starts @sentry/browser (served at /vendor/sentry.js) with Sentry.init and its
 * default integrations, options added; more is a script tag or two put after it. Its transport is
 * the SDK's own fetch transport, wrapped to note each envelope's item types and the status that
 * answered it; `untilSent(type, n)` waits until n envelopes holding an item of type were answered,
 * failing as soon as any envelope was answered with anything but 200.
 */
export function sentryPage(options: Record<string, unknown>, more = ''): string {
  return `<!doctype html><html><body>
<button id="crash" class="buy">Buy</button>
<script type="module">
  import * as Sentry from '/vendor/sentry.js'
  import { onBuyClick, rejectLater } from '/app/bug.js'
  const sent = []
  window.sentryErrors = []
  const consoleError = console.error
  console.error = (...args) => { window.sentryErrors.push(args.map(String).join(' ')); consoleError(...args) }
  Sentry.init({
    ...${JSON.stringify(options)},
    transport: (transportOptions) => {
      const inner = Sentry.makeFetchTransport(transportOptions)
      return {
        ...inner,
        send: async (envelope) => {
          const types = envelope[1].map((item) => item[0].type)
          try {
            const answer = await inner.send(envelope)
            sent.push({ types, status: answer && answer.statusCode })
            return answer
          } catch (error) {
            sent.push({ types, status: String(error) })
            throw error
          }
        },
      }
    },
  })
  Sentry.setUser({ id: 'user-7' })
  Sentry.setTag('team', 'checkout')
  console.log('cart opened')
  document.getElementById('crash').addEventListener('click', onBuyClick)
  window.rejectLater = rejectLater
  window.sentTypes = () => sent.map((envelope) => envelope.types)
  window.untilSent = (type, count) => (${UNTIL})(() => sent.filter((envelope) => envelope.types.includes(type) || envelope.status !== 200), count, (envelope) => envelope.status === 200)
  window.svcReady = true
</script>${more}</body></html>`
}

/** The original source of the stamped chunk; the TypeError is thrown on line 3. */
export const CHECKOUT_SOURCE = `export function applyCoupon(cart) {
  const total = cart.total
  return cart.coupon.code.toUpperCase() + total
}
window.applyCouponLater = () => setTimeout(() => applyCoupon({ total: 3 }))
`

/** The snippet sentry-cli's `sourcemaps inject` puts first in a chunk: it files the chunk's debug id under a stack that names the chunk's URL. */
function debugIdSnippet(debugId: string): string {
  return `!function(){try{var e="undefined"!=typeof window?window:"undefined"!=typeof global?global:"undefined"!=typeof globalThis?globalThis:"undefined"!=typeof self?self:{},n=(new e.Error).stack;n&&(e._sentryDebugIds=e._sentryDebugIds||{},e._sentryDebugIds[n]="${debugId}",e._sentryDebugIdIdentifier="sentry-dbid-${debugId}")}catch(e){}}();`
}

/**
 * Builds CHECKOUT_SOURCE (as dir/src/checkout.js) into a minified dir/assets/checkout.js with its
 * map, and stamps both as sentry-cli does: the snippet on a line of its own before the code (the
 * map's mappings shifted down a line to match), `//# debugId=` last, and the id in the map.
 * Returns the stamped chunk's text.
 */
export async function stampedChunk(dir: string, debugId: string): Promise<string> {
  for (const folder of ['src', 'assets']) mkdirSync(join(dir, folder), { recursive: true })
  writeFileSync(join(dir, 'src/checkout.js'), CHECKOUT_SOURCE)
  const result = await build({
    absWorkingDir: dir,
    entryPoints: ['src/checkout.js'],
    outdir: join(dir, 'assets'),
    bundle: true,
    format: 'iife',
    minify: true,
    sourcemap: 'external',
    write: false,
    logLevel: 'silent',
  })
  const js = result.outputFiles.find((file) => file.path.endsWith('.js'))!.text
  const map = JSON.parse(result.outputFiles.find((file) => file.path.endsWith('.js.map'))!.text) as { mappings: string }
  const chunk = `${debugIdSnippet(debugId)}\n${js}\n//# debugId=${debugId}\n`
  writeFileSync(join(dir, 'assets/checkout.js'), chunk)
  writeFileSync(join(dir, 'assets/checkout.js.map'), JSON.stringify({ ...map, mappings: `;${map.mappings}`, debug_id: debugId, debugId }))
  return chunk
}
