/**
 * Real browsers for the SDK tests: Debian's Chromium driven by playwright-core, and a small
 * static server for the pages under test. The pages load exactly what ships in the package
 * (sdk/dist, built by sdk/build.mjs).
 */
import { execFile, execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer, request, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { chromium, type Browser } from 'playwright-core'
import { childEnv } from '../env.js'
import { PATIENCE_MS } from '../patience.js'

export const CHROMIUM = '/usr/bin/chromium'
export const FIREFOX = '/usr/bin/firefox-esr'
const SDK_DIST = fileURLToPath(new URL('../../../sdk/dist/', import.meta.url))

interface Teardown {
  teardown(fn: () => unknown): void
}

/**
 * The built SDK must be there: `npm test` builds it once before tap starts (test files run in
 * parallel and must not rebuild it under each other); a file run on its own builds it if missing.
 */
export function ensureSdkBuilt(): void {
  if (existsSync(`${SDK_DIST}index.js`)) return
  execFileSync(process.execPath, [fileURLToPath(new URL('../../../sdk/build.mjs', import.meta.url))], { stdio: 'inherit' })
}

/** Headless Chromium from Debian, closed with the test; fails with the install line when missing. */
export async function launchChromium(t: Teardown): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: sudo apt-get install chromium (or sudo bash scripts/install-system-deps.sh)`)
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    // This machine has no network beyond loopback: background services only produce refused connections.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  t.teardown(() => browser.close())
  // Playwright's own waits (locators, waitForFunction, waitForURL, navigations) give up after 30 s
  // by default; every context, and so every page, gets the suite's patience instead. newPage()
  // makes its context through newContext().
  const newContext = browser.newContext.bind(browser)
  browser.newContext = async (...options) => {
    const context = await newContext(...options)
    context.setDefaultTimeout(PATIENCE_MS)
    context.setDefaultNavigationTimeout(PATIENCE_MS)
    return context
  }
  return browser
}

/**
 * Opens url in Firefox ESR from Debian, driven over WebDriver BiDi by puppeteer-core in a child
 * process (see firefox-drive.ts), clicks selector, and resolves with Firefox's user agent.
 */
export async function driveFirefox(url: string, selector: string): Promise<string> {
  if (!existsSync(FIREFOX)) throw new Error(`Firefox ESR is missing at ${FIREFOX}: sudo apt-get install firefox-esr (or sudo bash scripts/install-system-deps.sh)`)
  const env: NodeJS.ProcessEnv = { ...process.env }
  delete env.NODE_OPTIONS
  const driver = fileURLToPath(new URL('./firefox-drive.ts', import.meta.url))
  // Asynchronously: the page server and the service under test live in this process.
  // Killed only after the page's own waits (PATIENCE_MS) have had their chance to say what they missed.
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', driver, url, selector], { env, encoding: 'utf8', timeout: PATIENCE_MS + 30_000 })
  return stdout.trim()
}

/**
 * A page that starts the SDK with config and offers the bugs the tests trigger: a click handler
 * that reads a property of undefined, an unhandled rejection, a fetch with a token in its URL.
 */
export function sdkTestPage(config: Record<string, unknown>): string {
  return `<!doctype html><html><body>
<button id="crash" class="buy primary">Buy</button>
<script type="module">
  import { init, setUser } from '/sdk/index.js'
  init(${JSON.stringify(config)})
  setUser({ id: 'user-7' })
  document.getElementById('crash').addEventListener('click', function onBuyClick() { const cart = undefined; return cart.items.length })
  window.rejectLater = () => { Promise.reject(new RangeError('async boom')) }
  window.fetchWithToken = () => fetch('/missing?token=abc123&page=2').catch(() => {})
  window.throwNow = (message) => setTimeout(() => { throw new Error(message) })
  window.svcReady = true
</script></body></html>`
}

/**
 * Serves pages (path → HTML, or a script for paths ending .js) and the built SDK under /sdk/ on a
 * free loopback port; with tunnel, also forwards <prefix>/api/v1/* to the service as an app's server would.
 */
export async function servePages(t: Teardown, pages: Record<string, string>, tunnel?: { prefix: string; target: string }): Promise<string> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!
    if (tunnel && path.startsWith(`${tunnel.prefix}/api/v1/`)) {
      // What an app's server rewrite does: forward the SDK's API paths, body and headers as sent.
      const { host: _host, cookie: _cookie, authorization: _authorization, ...headers } = req.headers
      const upstream = request(`${tunnel.target}${req.url!.slice(tunnel.prefix.length)}`, { method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      })
      upstream.on('error', () => res.writeHead(502).end())
      req.pipe(upstream)
      return
    }
    if (path.startsWith('/sdk/')) {
      const file = `${SDK_DIST}${path.slice('/sdk/'.length)}`
      if (!file.startsWith(SDK_DIST) || !existsSync(file)) return void res.writeHead(404).end()
      return void res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(readFileSync(file))
    }
    const page = pages[path]
    if (page === undefined) return void res.writeHead(404).end('not found')
    res.writeHead(200, { 'Content-Type': path.endsWith('.js') ? 'text/javascript' : 'text/html' }).end(page)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  server.unref()
  const { port } = server.address() as { port: number }
  // localhost, not 127.0.0.1: the page is then cross-origin to the service, as in production.
  return `http://localhost:${port}`
}

const REPO = fileURLToPath(new URL('../../../', import.meta.url))

/**
 * The environment of a user's shell: childEnv, less the npm_* variables `npm test` sets (such as
 * npm_config_local_prefix, the repository), so npm and vite find their project from the folder.
 */
export function shellEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env = childEnv(extra)
  for (const name of Object.keys(env)) if (name.startsWith('npm_')) delete env[name]
  return env
}

/**
 * Packs sdk/ as npm would publish it and returns the tarball's path. Scripts are skipped: the
 * tarball holds sdk/dist as built (ensureSdkBuilt), since prepack's rebuild would swap dist out
 * from under the browser tests running beside this one.
 */
export async function packSdk(t: Teardown): Promise<string> {
  ensureSdkBuilt()
  const dir = mkdtempSync(join(tmpdir(), 'svc-sdk-pack-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const { stdout } = await promisify(execFile)('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], { cwd: join(REPO, 'sdk'), env: shellEnv(), encoding: 'utf8' })
  return join(dir, stdout.trim().split('\n').pop()!)
}

/**
 * Copies test/fixtures/<name> to a new folder under the repository's tmp/ (gitignored; inside
 * the repository so vite, react and vue resolve from its node_modules, as an app's own would) and
 * installs the tarball there with nothing else; returns the folder.
 */
export async function installFixtureApp(t: Teardown, name: string, tarball: string): Promise<string> {
  mkdirSync(join(REPO, 'tmp'), { recursive: true })
  const dir = mkdtempSync(join(REPO, 'tmp', `${name}-`))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  cpSync(join(REPO, 'test/fixtures', name), dir, { recursive: true })
  await promisify(execFile)('npm', ['install', '--no-save', '--no-package-lock', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', tarball], { cwd: dir, env: shellEnv() })
  return dir
}

/** Runs `vite build` in dir as a user's shell would, with env added; resolves with the exit code and output. */
export async function viteBuild(dir: string, env: Record<string, string | undefined>, args: string[] = []): Promise<{ code: number; output: string }> {
  const vite = join(REPO, 'node_modules/vite/bin/vite.js')
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [vite, 'build', ...args], { cwd: dir, env: shellEnv(env), encoding: 'utf8', timeout: 120_000 })
    return { code: 0, output: stdout + stderr }
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string }
    return { code: typeof failed.code === 'number' ? failed.code : 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` }
  }
}

/** Runs `npm run <script>` in dir as a user's shell would, with env added; resolves with the exit code and output. */
export async function runScript(dir: string, script: string, env: Record<string, string | undefined>, timeout = 240_000): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('npm', ['run', '--silent', script], { cwd: dir, env: shellEnv(env), encoding: 'utf8', timeout })
    return { code: 0, output: stdout + stderr }
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string }
    return { code: typeof failed.code === 'number' ? failed.code : 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` }
  }
}

/** Every file under dir, as paths relative to it with forward slashes. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort()
}

/** Serves a built app folder (index.html at /, every other file by its path) with servePages. */
export function serveBuild(t: Teardown, dist: string): Promise<string> {
  const pages: Record<string, string> = {}
  for (const file of filesUnder(dist)) pages[file === 'index.html' ? '/' : `/${file}`] = readFileSync(join(dist, file), 'utf8')
  return servePages(t, pages)
}
