/**
 * The investigator's fixture: a small shop repository (test/fixtures/investigate-app) with three
 * real bugs, built as it ships (esbuild, minified, external maps) and run in node:vm pages under
 * its production URLs, so each bug's event carries the stack V8 really wrote and maps that really
 * resolve it. One build per process, shared by every caller until the last one cleans up.
 */
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import vm from 'node:vm'
import { build } from 'esbuild'

/** One of the fixture's bugs: what the investigation should conclude, and events that report it. */
export interface FixtureBug {
  key: 'app' | 'third_party' | 'not_in_repo'
  expected: { outcome: 'investigated' | 'insight' | 'needs_human' | 'new'; reasonCode?: string; file?: string; thirdParty?: string }
  /** A valid body for POST /api/v1/events; a fresh event id, user and session per call unless given. */
  event(overrides?: { user?: string; session?: string; message?: string; release?: string; userAgent?: string; timestamp?: string }): Record<string, unknown>
}

/** The built fixture: the repository to investigate, the maps to upload, and the bugs. */
export interface InvestigateFixture {
  repoDir: string
  release: 'shop@1.4.0'
  maps: Array<{ urlPath: string; file: string; minified: string }>
  bugs: Record<FixtureBug['key'], FixtureBug>
  cleanup(): Promise<void>
}

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url))
const ORIGIN = 'https://shop.example'
const PAGE_URL = `${ORIGIN}/cart`
const APP_URL = `${ORIGIN}/assets/app.js`
const WIDGET_URL = `${ORIGIN}/assets/widget.js`
const TAG_URL = 'https://cdn.shop-analytics.example/tag.js'
const RELEASE = 'shop@1.4.0'
const USER_AGENT = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'
const SDK_VERSION = (JSON.parse(readFileSync(new URL('../../../sdk/package.json', import.meta.url), 'utf8')) as { version: string }).version

interface Thrown {
  type: string
  message: string
  stack: string
}

interface Built {
  dir: string
  fixture: Omit<InvestigateFixture, 'cleanup'>
}

let cached: Promise<Built> | undefined
let users = 0

/** Builds the fixture once per process (well under a second) and hands out a shared copy. */
export async function buildInvestigateFixture(): Promise<InvestigateFixture> {
  users++
  cached ??= create()
  let built: Built
  try {
    built = await cached
  } catch (error) {
    users--
    cached = undefined
    throw error
  }
  let released = false
  const cleanup = async (): Promise<void> => {
    if (released) return
    released = true
    if (--users > 0) return
    cached = undefined
    await rm(built.dir, { recursive: true, force: true })
  }
  return { ...built.fixture, cleanup }
}

async function create(): Promise<Built> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-investigate-'))
  try {
    const repoDir = join(dir, 'repo')
    await cp(join(FIXTURES, 'investigate-app'), repoDir, { recursive: true })
    // The widget is another project's build: its sources sit beside the assets, not in the repository.
    await cp(join(FIXTURES, 'investigate-widget'), join(dir, 'widget-kit'), { recursive: true })
    const assets = join(dir, 'assets')
    await mkdir(assets)
    // Laid out as the repository's `npm run build` writes dist/assets/app.js, so the map names its
    // sources by their repository paths (../../apps/shop/src/cart.ts); write: false leaves the
    // repository copy as the user's clone would be.
    const app = await bundle(join(repoDir, 'apps/shop/src/main.ts'), join(repoDir, 'dist/assets/app.js'), join(assets, 'app.js'))
    const widget = await bundle(join(dir, 'widget-kit/src/carousel.ts'), join(assets, 'widget.js'), join(assets, 'widget.js'))
    const tag = await readFile(join(FIXTURES, 'investigate-thirdparty/tag.js'), 'utf8')
    const scripts = [
      { url: TAG_URL, code: tag },
      { url: APP_URL, code: app.code },
      { url: WIDGET_URL, code: widget.code },
    ]
    const bugs: InvestigateFixture['bugs'] = {
      app: bug('app', { outcome: 'investigated', file: 'apps/shop/src/cart.ts' }, appBug(scripts), 'button.qty-increase'),
      third_party: bug('third_party', { outcome: 'insight', thirdParty: 'cdn.shop-analytics.example' }, thirdPartyBug(scripts), 'button#place-order'),
      not_in_repo: bug('not_in_repo', { outcome: 'new', reasonCode: 'no_app_frames' }, widgetBug(scripts), 'button.carousel-next'),
    }
    const maps = [
      { urlPath: '/assets/app.js', file: app.mapFile, minified: app.file },
      { urlPath: '/assets/widget.js', file: widget.mapFile, minified: widget.file },
    ]
    return { dir, fixture: { repoDir, release: RELEASE, maps, bugs } }
  } catch (error) {
    await rm(dir, { recursive: true, force: true })
    throw error
  }
}

/** Bundles entry as if written to outfile (which names the map's sources), and writes it to target. */
async function bundle(entry: string, outfile: string, target: string): Promise<{ code: string; file: string; mapFile: string }> {
  const result = await build({ entryPoints: [entry], bundle: true, minify: true, format: 'iife', sourcemap: 'external', outfile, write: false, logLevel: 'silent' })
  const code = result.outputFiles.find((f) => f.path.endsWith('.js'))!.text
  const map = result.outputFiles.find((f) => f.path.endsWith('.js.map'))!.text
  await writeFile(target, code)
  await writeFile(`${target}.map`, map)
  return { code, file: target, mapFile: `${target}.map` }
}

// ---- The page: just enough DOM for the three scripts, in a fresh vm context per visit. ----

type Listener = (event: { type: string; target: FakeElement }) => void

interface FakeElement {
  textContent: string
  dataset: Record<string, string>
  className: string
  listeners: Map<string, Listener[]>
  children: Record<string, FakeElement[]>
  addEventListener(type: string, listener: Listener): void
  querySelector(selector: string): FakeElement | null
  querySelectorAll(selector: string): FakeElement[]
  getAttribute(name: string): string | null
  setAttribute(name: string, value: string): void
  appendChild(child: FakeElement): FakeElement
  classList: { toggle(name: string, on?: boolean): boolean }
}

function element(init: { textContent?: string; dataset?: Record<string, string>; attributes?: Record<string, string>; children?: Record<string, FakeElement[]> } = {}): FakeElement {
  const attributes = new Map(Object.entries(init.attributes ?? {}))
  const self: FakeElement = {
    textContent: init.textContent ?? '',
    dataset: init.dataset ?? {},
    className: '',
    listeners: new Map(),
    children: init.children ?? {},
    addEventListener: (type, listener) => void self.listeners.set(type, [...(self.listeners.get(type) ?? []), listener]),
    querySelector: (selector) => self.children[selector]?.[0] ?? null,
    querySelectorAll: (selector) => self.children[selector] ?? [],
    getAttribute: (name) => attributes.get(name) ?? null,
    setAttribute: (name, value) => void attributes.set(name, value),
    appendChild: (child) => child,
    classList: { toggle: (_name, on) => on ?? false },
  }
  return self
}

/** Loads the page's scripts in order, each under its URL, as the browser's <script> tags would. */
function visit(scripts: Array<{ url: string; code: string }>, byId: Record<string, FakeElement>, lists: Record<string, FakeElement[]>): void {
  const document = { ...element({ children: lists }), readyState: 'complete', currentScript: null, getElementById: (id: string) => byId[id] ?? null, createElement: () => element() }
  // The tag's config request never answers within the visit: the shopper is quicker than the CDN.
  const fetch = (): Promise<never> => new Promise<never>(() => {})
  const context = vm.createContext({ document, navigator: { userAgent: USER_AGENT, language: 'en-US' }, location: { href: PAGE_URL, origin: ORIGIN }, fetch })
  vm.runInContext('globalThis.window = globalThis', context)
  for (const script of scripts) new vm.Script(script.code, { filename: script.url }).runInContext(context)
}

/** Clicks like a shopper and returns what the page threw, with the stack as a browser reports it. */
function click(target: FakeElement): Thrown {
  try {
    for (const listener of target.listeners.get('click') ?? []) listener({ type: 'click', target })
  } catch (error) {
    const { name, message, stack } = error as Error
    return { type: name, message, stack: pageStack(stack ?? '') }
  }
  throw new Error('the click threw nothing: the fixture bug did not fire')
}

/**
 * A browser dispatches a click from native code, so its stacks end at the page's last frame; here
 * the click comes from this file, whose frames (and Node's) are cut to leave what Chrome writes.
 */
function pageStack(stack: string): string {
  const lines = stack.split('\n')
  const first = lines.findIndex((line) => /^\s+at /.test(line))
  if (first < 0) return stack
  const page = [TAG_URL, APP_URL, WIDGET_URL]
  const end = lines.findIndex((line, i) => i >= first && !page.some((url) => line.includes(`(${url}:`) || line.includes(`at ${url}:`)))
  return lines.slice(0, end < 0 ? lines.length : end).join('\n')
}

function cartPage(cart: unknown): { byId: Record<string, FakeElement>; lists: Record<'button.qty-increase' | '[data-carousel]', FakeElement[]> } {
  const lists = {
    'button.qty-increase': [element({ dataset: { sku: 'MUG-01' } })],
    '[data-carousel]': [element({ attributes: { 'data-per-view': '3' }, children: { '.slide': [], '.carousel-next': [element()], '.carousel-prev': [element()] } })],
  }
  const byId = { 'cart-state': element({ textContent: JSON.stringify(cart) }), 'cart-summary': element(), 'checkout-status': element(), 'place-order': element() }
  return { byId, lists }
}

const MUG = { sku: 'MUG-01', name: 'Enamel mug', quantity: 1, price: { amount: 1250, currency: 'USD' } }

/** A shopper with a promotional gift in the cart adds a mug: the summary's total reads the gift's null price. */
function appBug(scripts: Array<{ url: string; code: string }>): Thrown {
  const page = cartPage({ id: 'c-7f3k2', currency: 'USD', items: [MUG, { sku: 'GIFT-TOTE', name: 'Free tote bag', quantity: 1, price: null, gift: true }] })
  visit(scripts, page.byId, page.lists)
  return click(page.lists['button.qty-increase'][0]!)
}

/** A shopper places the order before the analytics tag's config arrived: the tag's batch is not there yet. */
function thirdPartyBug(scripts: Array<{ url: string; code: string }>): Thrown {
  const page = cartPage({ id: 'c-2m9q1', currency: 'USD', items: [MUG] })
  visit(scripts, page.byId, page.lists)
  return click(page.byId['place-order']!)
}

/** A shopper with no recommendations presses the carousel's next arrow: zero pages, minus one dot. */
function widgetBug(scripts: Array<{ url: string; code: string }>): Thrown {
  const page = cartPage({ id: 'c-8d4w6', currency: 'USD', items: [MUG] })
  visit(scripts, page.byId, page.lists)
  return click(page.lists['[data-carousel]'][0]!.children['.carousel-next']![0]!)
}

function bug(key: FixtureBug['key'], expected: FixtureBug['expected'], thrown: Thrown, clicked: string): FixtureBug {
  return {
    key,
    expected,
    event(overrides = {}) {
      const now = Date.now()
      const message = overrides.message ?? thrown.message
      // V8 heads a stack with "Type: message"; an overridden message heads it the same way.
      const frames = thrown.stack.slice(thrown.stack.search(/\n\s+at /))
      const stack = overrides.message === undefined ? thrown.stack : `${thrown.type}: ${message}${frames}`
      return {
        timestamp: overrides.timestamp ?? new Date(now).toISOString(),
        event_id: randomUUID(),
        error: { type: thrown.type, message, stack },
        breadcrumbs: [
          { type: 'navigation', message: PAGE_URL, timestamp: now - 9_400 },
          { type: 'http', message: `GET ${ORIGIN}/api/recommendations`, data: { method: 'GET', status: 200, duration_ms: 84 }, timestamp: now - 9_100 },
          { type: 'click', message: clicked, timestamp: now - 12 },
        ],
        context: { url: PAGE_URL, user_agent: overrides.userAgent ?? USER_AGENT },
        sdk_version: SDK_VERSION,
        platform: 'javascript',
        environment: 'production',
        release: overrides.release ?? RELEASE,
        session_id: overrides.session ?? randomUUID(),
        user: { id: overrides.user ?? `shopper-${randomUUID().slice(0, 8)}` },
      }
    },
  }
}
