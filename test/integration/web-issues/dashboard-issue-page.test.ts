import { randomUUID } from 'node:crypto'
import { runInNewContext } from 'node:vm'
import { buildSync } from 'esbuild'
import t from 'tap'
import { storeEventBatch } from '../../../services/grouper/store-events.js'
import { Symbolicator, type MapSource } from '../../../services/grouper/symbolication/symbolicator.js'
import { DAY } from '../../../shared/time.js'
import { approveNewProject, DashboardClient } from '../../helpers/dashboard.js'
import { sampleEvent, startTestStack, type TestStack } from '../../helpers/stack.js'

const PAGE = 'https://shop.example.com/cart'
const BUNDLE = 'https://shop.example.com/assets/app-1a2b3c4d.js'
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'

const SOURCE = `export function checkout(cart) {
  return totalOf(cart)
}

function totalOf(cart) {
  if (cart.items.length === 0) throw new Error('Cart ' + cart.id + ' has no items')
  let sum = 0
  for (const item of cart.items) sum += item.price
  return sum
}

export function main() {
  return checkout(globalThis.CART)
}

main()
`

/**
 * A minified bundle of source (as sourceName in its map), its map, and the V8 stack of running it
 * for cart: only the bundle's frames, then the frames extra adds.
 */
function crash(cartId: number, options: { source?: string; sourceName?: string; extra?: string[] } = {}): { map: string; stack: string; message: string } {
  const result = buildSync({ stdin: { contents: options.source ?? SOURCE, sourcefile: 'src/cart.ts', loader: 'ts' }, bundle: true, minify: true, format: 'iife', sourcemap: 'external', outfile: 'app.js', write: false })
  const code = result.outputFiles.find((f) => f.path.endsWith('.js'))!.text
  const map = JSON.parse(result.outputFiles.find((f) => f.path.endsWith('.map'))!.text) as { sources: string[] }
  map.sources = [options.sourceName ?? '../../src/cart.ts']
  try {
    runInNewContext(code, { CART: { id: cartId, items: [] } }, { filename: BUNDLE })
  } catch (error) {
    const lines = (error as Error).stack!.split('\n')
    const stack = [lines[0]!, ...lines.filter((line) => line.includes(BUNDLE)), ...(options.extra ?? [])].join('\n')
    return { map: JSON.stringify(map), stack, message: (error as Error).message }
  }
  throw new Error('the bundle did not throw')
}

/** Maps as the upload endpoint would serve them: per release, by the bundle's path. */
function mapsFor(maps: Record<string, string>): MapSource {
  return {
    hasMaps: async () => true,
    byDebugId: async () => undefined,
    byUrlPath: async (_project, release, path) => (path === new URL(BUNDLE).pathname ? maps[release] : undefined),
  }
}

/** Stores events through the real grouper, each received at its own time. */
async function store(stack: TestStack, projectId: string, symbolicator: Symbolicator, events: Array<{ body: Record<string, unknown>; receivedAt?: number }>): Promise<void> {
  const envelopes = events.map(({ body, receivedAt = Date.now() }) => ({ id: randomUUID(), projectId, keyId: 'test', receivedAt, body: JSON.stringify(body) }))
  await storeEventBatch(stack.db, envelopes, symbolicator)
}

async function issueIdOf(stack: TestStack, projectId: string, where: string): Promise<string> {
  const { rows } = await stack.db.query<{ id: string }>(`SELECT id FROM issues WHERE project_id = $1 AND ${where}`, [projectId])
  if (rows.length !== 1) throw new Error(`${rows.length} issues match ${where}`)
  return rows[0]!.id
}

/** The HTML of the facet table captioned caption. */
function facet(page: string, caption: string): string {
  return new RegExp(`<caption>${caption}</caption>[\\s\\S]*?</table>`).exec(page)?.[0] ?? ''
}

t.test('the issue page tells the latest event in source terms, with where, when and the raw messages', async (t) => {
  const stack = await startTestStack(t)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('dev@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')
  const extra = ['    at dispatch (https://shop.example.com/assets/vendor-77aa.js:1:500)', '    at chrome-extension://abcdefgh/content.js:3:10']
  const first = crash(4711, { extra })
  const symbolicator = new Symbolicator(mapsFor({ 'shop@1.0.0': first.map, 'shop@1.0.1': first.map }))
  const breadcrumbs = [
    { type: 'navigation', message: '/cart', timestamp: Date.now() - 5000 },
    { type: 'click', message: 'button#pay.primary', timestamp: Date.now() - 3000 },
    { type: 'http', message: 'GET /api/cart', data: { method: 'GET', status: 500, duration_ms: 42 }, timestamp: Date.now() - 2000 },
  ]
  const event = (cartId: number, extraFields: Record<string, unknown>) =>
    sampleEvent({ error: { type: 'Error', message: `Cart ${cartId} has no items`, stack: crash(cartId, { extra }).stack }, context: { url: PAGE, user_agent: CHROME }, breadcrumbs, release: 'shop@1.0.0', environment: 'production', ...extraFields })
  await store(stack, projectId, symbolicator, [
    { body: event(4711, { timestamp: new Date(Date.now() - 2 * DAY).toISOString() }), receivedAt: Date.now() - 2 * DAY },
    { body: event(4712, { release: 'shop@1.0.1', environment: 'staging', context: { url: PAGE, user_agent: FIREFOX } }) },
    { body: event(4713, {}) },
  ])
  const issueId = await issueIdOf(stack, projectId, `culprit LIKE 'totalOf%'`)

  const page = await client.get(`/projects/${projectId}/issues/${issueId}`)
  t.equal(page.status, 200)
  t.match(page.text, '<h1 class="issue-title">Error: Cart &lt;n&gt; has no items</h1>', 'the normalised title')
  t.match(page.text, '<code>totalOf (src/cart.ts:6)</code>', 'the culprit')
  t.match(page.text, /<dt>Events<\/dt><dd>3<\/dd>/)
  t.match(page.text, /<dt>Grouping<\/dt><dd>version 4 · source-mapped, with source lines<\/dd>/)

  t.match(page.text, /<code class="fn">totalOf<\/code> <span class="loc">\(<code>src\/cart\.ts:6:\d+<\/code>\)/, 'the throwing frame in source terms, its path normalised')
  t.match(page.text, /<tr class="hit"><td class="ln">6<\/td><td class="code"><code><span class="sr-only">Line that threw: <\/span> {2}if \(cart\.items\.length === 0\) throw new Error\(/, 'its source line, numbered and marked')
  t.match(page.text, /<td class="ln">5<\/td><td class="code"><code>function totalOf\(cart\) \{<\/code>/, 'the line before it')
  t.match(page.text, /<code class="fn">checkout<\/code> <span class="loc">\(<code>src\/cart\.ts:2:\d+<\/code>\)/, 'the caller, too')
  t.match(page.text, '<code class="fn">dispatch</code> <span class="loc">(<code>https://shop.example.com/assets/vendor-77aa.js:1:500</code>)', 'a frame no map placed keeps its bundle location')
  t.match(page.text, 'No source map uploaded for this file and release — upload maps with svc-sourcemaps.', 'and says why')
  t.match(page.text, /<li class="frame-run"><details><summary>1 library or browser frame<\/summary>[\s\S]*?chrome-extension:\/\/abcdefgh\/content\.js:3:10/, 'the extension frame is folded away')

  const crumbs = /<table class="breadcrumbs">[\s\S]*?<\/table>/.exec(page.text)?.[0] ?? ''
  t.match(crumbs, /<span class="status">navigation<\/span><\/td><td><code class="wrap">\/cart<\/code>[\s\S]*button#pay\.primary[\s\S]*GET \/api\/cart/, 'breadcrumbs, oldest first')
  t.match(crumbs, '<dt>status</dt><dd><code>500</code></dd>', 'with their data')
  t.match(crumbs, /−[\d.]+ s/, 'and how long before the error')

  t.match(facet(page.text, 'Browsers'), /<code>Chrome 126<\/code>[\s\S]*?<td class="num">2<\/td>[\s\S]*<code>Firefox 128<\/code>[\s\S]*?<td class="num">1<\/td>/)
  t.match(facet(page.text, 'Releases'), /<code>shop@1\.0\.0<\/code>[\s\S]*?<td class="num">2<\/td>[\s\S]*<code>shop@1\.0\.1<\/code>[\s\S]*?<td class="num">1<\/td>/)
  t.match(facet(page.text, 'Environments'), /<code>production<\/code>[\s\S]*?<td class="num">2<\/td>[\s\S]*<code>staging<\/code>[\s\S]*?<td class="num">1<\/td>/)

  t.match(page.text, /<svg viewBox="0 0 600 116" role="img" aria-label="Events per day\. 3 events in the last 30 days, at most 2 on \d{4}-\d{2}-\d{2}/, 'the chart')
  t.equal(page.text.match(/<rect class="bar" /g)?.length, 2, 'bars on two days')
  t.equal(page.text.match(/<rect class="bar-empty" /g)?.length, 28, 'the other days empty')

  const recent = /<table class="events">[\s\S]*?<\/table>/.exec(page.text)?.[0] ?? ''
  for (const id of [4711, 4712, 4713]) t.match(recent, `Error: Cart ${id} has no items`, `the raw message of cart ${id}`)
  t.ok(recent.indexOf('4713') < recent.indexOf('4711'), 'newest first')
})

t.test('a string rejection says why it has no stack and what to do', async (t) => {
  const stack = await startTestStack(t)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('dev@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')
  await store(stack, projectId, new Symbolicator(mapsFor({})), [{ body: sampleEvent({ error: { type: 'Error', message: 'payment declined', stack: '', thrown: 'string' } }) }])
  const page = await client.get(`/projects/${projectId}/issues/${await issueIdOf(stack, projectId, 'true')}`)
  t.match(page.text, '<strong>No stack: not an Error.</strong> A string or another value that is not an Error was thrown, or a promise was rejected with one, so there is no stack. Throw or reject with new Error(...) to get one.')
  t.match(page.text, 'thrown value: string')
  t.notMatch(page.text, 'class="frames"', 'no frames to list')
})

t.test('noise issues are hidden from the list until asked for, then shown with why', async (t) => {
  const stack = await startTestStack(t)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('dev@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')
  await store(stack, projectId, new Symbolicator(mapsFor({})), [
    { body: sampleEvent() },
    { body: sampleEvent({ error: { type: 'Error', message: 'ResizeObserver loop completed with undelivered notifications.', stack: '' } }) },
  ])
  const noiseId = await issueIdOf(stack, projectId, `noise <> ''`)
  const base = `/projects/${projectId}/issues`

  const list = await client.get(base)
  t.notMatch(list.text, noiseId, 'hidden by default')
  t.notMatch(list.text, 'ResizeObserver')
  t.match(list.text, `<a href="${base}?noise=1">Show noise (1)</a>`)
  t.match((await client.get('/')).text, '1 issue ·', 'the project list counts issues that are not noise')

  const all = await client.get(`${base}?noise=1`)
  t.match(all.text, new RegExp(`<a href="${base}/${noiseId}">Error: ResizeObserver loop completed with undelivered notifications\\.</a> <span class="badge noise">noise: ResizeObserver loop</span>`))
  t.match(all.text, `<a href="${base}">Hide noise</a>`)
  t.equal(all.text.match(/<tr data-issue="[^"]+"><td><input/g)?.length, 2, 'both issues listed')

  const page = await client.get(`${base}/${noiseId}`)
  t.match(page.text, '<strong>Noise: ResizeObserver loop.</strong> The browser reports a ResizeObserver loop as an error, but nothing broke')
})

t.test('event text from every field comes out escaped and inert', async (t) => {
  const stack = await startTestStack(t)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('dev@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')
  const attack = (n: number) => `<script>alert(${n})</script>"><img src=x onerror=alert(${n})>`
  // The map itself is hostile too: a source file name and source text with markup (JSX is).
  const hostileSource = SOURCE.replace('let sum = 0', `let sum = 0 // ${attack(1)}`).replace("' has no items'", `' has no items ${attack(2).replace(/'/g, '')}'`)
  const built = crash(1, { source: hostileSource, sourceName: `../../src/${attack(3)}.ts`, extra: [`${attack(4)}*${attack(5)}@https://shop.example.com/${attack(6)}.js:1:1`] })
  const frames = built.stack.split('\n')
  const event = sampleEvent({
    error: { type: attack(7), message: attack(8), stack: `${frames.join('\n')}\n    at ${attack(9)} (https://shop.example.com/"><img src=x onerror=alert(10)>.js:1:1)` },
    breadcrumbs: [{ type: attack(11), category: attack(12), message: attack(13), timestamp: Date.now(), data: { [attack(14)]: attack(15) } }, attack(16)],
    context: { url: `javascript:alert(17)//"><script>alert(17)</script>`, user_agent: attack(18) },
    release: attack(19),
    environment: attack(20),
  })
  // A Firefox stack too, whose async cause and names are the sender's text.
  const firefox = sampleEvent({ error: { type: 'Error', message: attack(21), stack: `${attack(22)}@${BUNDLE}:1:1\n${attack(23)}*${attack(24)}@${BUNDLE}:1:2` }, context: { url: PAGE, user_agent: FIREFOX } })
  await store(stack, projectId, new Symbolicator(mapsFor({ [attack(19)]: built.map })), [{ body: event }, { body: firefox }])
  const { rows } = await stack.db.query<{ id: string }>('SELECT id FROM issues WHERE project_id = $1', [projectId])
  t.ok(rows.length >= 1)
  const pages = [await client.get(`/projects/${projectId}/issues`), ...(await Promise.all(rows.map((row) => client.get(`/projects/${projectId}/issues/${row.id}`))))]
  const allowed = new Set('html head meta title link body a header nav div span form input button main p h1 h2 h3 dl dt dd code pre time table thead tbody tr th td caption ol li details summary svg rect line text figure figcaption meter strong section ul label select option textarea'.split(' '))
  let escaped = 0
  for (const page of pages) {
    t.equal(page.status, 200)
    const tags = [...page.text.matchAll(/<([a-zA-Z][\w-]*)([^>]*)>/g)]
    const unknown = tags.map((tag) => tag[1]!.toLowerCase()).filter((name) => !allowed.has(name))
    t.same(unknown, [], 'only the page’s own elements')
    t.same(tags.filter((tag) => /\son[a-z]+\s*=/i.test(tag[2]!)).map((tag) => tag[0]), [], 'no event handler attribute')
    t.notMatch(page.text, /href="(?![/#])/, 'no link but our own')
    escaped += page.text.split('&lt;script&gt;alert(').length - 1
  }
  const detail = pages.slice(1).map((page) => page.text).join('\n')
  for (const n of [4, 8, 13, 15, 18, 19, 21, 23]) t.match(detail, `&lt;script&gt;alert(${n})&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(${n})&gt;`, `field ${n} shown as text`)
  t.match(detail, 'async boundary: &lt;script&gt;alert(23)', 'the Firefox async boundary, escaped')
  t.match(detail, 'javascript:alert(17)//&quot;&gt;&lt;script&gt;alert(17)&lt;/script&gt;', 'the page URL as text, not a link')
  t.ok(escaped > 10, `${escaped} escaped scripts`)
})
