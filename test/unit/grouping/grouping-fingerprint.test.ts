import t from 'tap'
import { CURRENT_GROUPING_VERSION, groupEvent as groupWith, parseFrames, type GroupingInput } from '../../../services/grouper/grouping/index.js'

// These are the rules of versions 1 and 2, which issues stored under them depend on: they must never
// change. Version 3 has its own tests (grouping-v3.test.ts).
const groupEvent = (input: GroupingInput, version = 2): ReturnType<typeof groupWith> => groupWith(input, version)

// One bug (a cart line without a product) thrown from a click handler in three browsers.
const chrome: GroupingInput = {
  type: 'TypeError',
  message: "Cannot read properties of undefined (reading 'price')",
  stack: [
    "TypeError: Cannot read properties of undefined (reading 'price')",
    '    at https://shop.example/src/cart/summary.ts:43:35',
    '    at Array.reduce (<anonymous>)',
    '    at CartSummary.total (https://shop.example/src/cart/summary.ts:42:31)',
    '    at CartSummary.render (https://shop.example/src/cart/summary.ts:17:22)',
    '    at HTMLButtonElement.<anonymous> (https://shop.example/src/main.ts:8:12)',
  ].join('\n'),
  url: 'https://shop.example/cart',
}
const firefox: GroupingInput = {
  type: 'TypeError',
  message: 'can\'t access property "price", line.product is undefined',
  stack: [
    'total/<@https://shop.example/src/cart/summary.ts:43:30',
    'total@https://shop.example/src/cart/summary.ts:42:18',
    'render@https://shop.example/src/cart/summary.ts:17:9',
    'setup/<@https://shop.example/src/main.ts:8:5',
    'EventListener.handleEvent*setup@https://shop.example/src/main.ts:7:10',
    '@https://shop.example/src/main.ts:20:1',
  ].join('\n'),
  url: 'https://shop.example/cart',
}
const safari: GroupingInput = {
  type: 'TypeError',
  message: "undefined is not an object (evaluating 'line.product.price')",
  stack: [
    '@https://shop.example/src/cart/summary.ts:43:40',
    'reduce@[native code]',
    'total@https://shop.example/src/cart/summary.ts:42:24',
    'render@https://shop.example/src/cart/summary.ts:17:15',
    '@https://shop.example/src/main.ts:8:14',
  ].join('\n'),
  url: 'https://shop.example/cart',
}

const thrownAt = (frames: string[], type = 'Error', message = 'boom'): GroupingInput => ({
  type,
  message,
  stack: [`${type}: ${message}`, ...frames.map((f) => `    at ${f}`)].join('\n'),
})

t.test('one bug thrown in Chrome, Firefox and Safari is one fingerprint despite different wording', async (t) => {
  const fingerprint = groupEvent(chrome).fingerprint
  t.equal(groupEvent(firefox).fingerprint, fingerprint, 'Firefox')
  t.equal(groupEvent(safari).fingerprint, fingerprint, 'Safari')
})

t.test('a new deploy with other asset hashes, host and positions keeps the fingerprint', async (t) => {
  const before = thrownAt(['applyCoupon (https://shop.example/assets/index-4f3a9c2b.js:1:18233)', 'onSubmit (https://shop.example/assets/index-4f3a9c2b.js:1:20411)'])
  const after = thrownAt(['applyCoupon (https://cdn.shop.example/assets/index-BkJ2n_3x.js:1:18950)', 'onSubmit (https://cdn.shop.example/assets/index-BkJ2n_3x.js:1:21002)'])
  t.equal(groupEvent(after).fingerprint, groupEvent(before).fingerprint)
})

t.test('two anonymous throw sites in one file are two fingerprints', async (t) => {
  const first = groupEvent(thrownAt(['https://shop.example/src/cart.ts:10:5']))
  const second = groupEvent(thrownAt(['https://shop.example/src/cart.ts:20:5']))
  t.not(first.fingerprint, second.fingerprint)
})

t.test('an anonymous throw site keeps its fingerprint when only the column moves', async (t) => {
  t.equal(groupEvent(thrownAt(['https://shop.example/src/cart.ts:10:5'])).fingerprint, groupEvent(thrownAt(['https://shop.example/src/cart.ts:10:9'])).fingerprint)
})

t.test('a named function keeps its fingerprint when its lines move', async (t) => {
  t.equal(groupEvent(thrownAt(['save (https://shop.example/src/cart.ts:10:5)'])).fingerprint, groupEvent(thrownAt(['save (https://shop.example/src/cart.ts:90:1)'])).fingerprint)
})

t.test('the message does not count when there are in-app frames, the type does', async (t) => {
  const frames = ['save (https://shop.example/src/cart.ts:10:5)']
  t.equal(groupEvent(thrownAt(frames, 'Error', 'one wording')).fingerprint, groupEvent(thrownAt(frames, 'Error', 'another wording')).fingerprint)
  t.not(groupEvent(thrownAt(frames, 'RangeError')).fingerprint, groupEvent(thrownAt(frames, 'TypeError')).fingerprint)
  t.equal(groupEvent(thrownAt(frames, '')).fingerprint, groupEvent(thrownAt(frames, 'Error')).fingerprint, 'an empty type counts as Error')
})

t.test('only the top five in-app frames count', async (t) => {
  const frames = (sixth: string, fifth = 'e') => ['a', 'b', 'c', 'd', fifth, sixth].map((name) => `${name} (https://shop.example/src/app.ts:1:1)`)
  t.equal(groupEvent(thrownAt(frames('f'))).fingerprint, groupEvent(thrownAt(frames('g'))).fingerprint, 'the sixth frame is ignored')
  t.not(groupEvent(thrownAt(frames('f', 'e'))).fingerprint, groupEvent(thrownAt(frames('f', 'x'))).fingerprint, 'the fifth is not')
})

t.test('library frames are skipped when choosing the frames and the culprit', async (t) => {
  const viaLibrary = groupEvent(thrownAt(['dispatch (https://shop.example/node_modules/.vite/deps/react-dom.js:9:9)', 'save (https://shop.example/src/cart.ts:10:5)']))
  const direct = groupEvent(thrownAt(['save (https://shop.example/src/cart.ts:10:5)']))
  t.equal(viaLibrary.fingerprint, direct.fingerprint)
  t.equal(viaLibrary.culprit, 'save (/src/cart.ts)')
})

t.test('without in-app frames, messages differing only in numbers and ids share a fingerprint', async (t) => {
  const a = groupEvent({ type: 'Error', message: 'Order 1234 not found for 123e4567-e89b-12d3-a456-426614174000', stack: '' })
  const b = groupEvent({ type: 'Error', message: 'Order 98 not found for 00000000-0000-4000-8000-000000000001', stack: '' })
  const c = groupEvent({ type: 'Error', message: 'Payment declined', stack: '' })
  const library = groupEvent(thrownAt(['render (https://shop.example/node_modules/lib/index.js:1:1)'], 'Error', 'Order 5 not found for 123e4567-e89b-12d3-a456-426614174999'))
  t.equal(a.fingerprint, b.fingerprint)
  t.equal(library.fingerprint, a.fingerprint, 'library-only frames fall back to the message too')
  t.not(a.fingerprint, c.fingerprint)
})

t.test('stale-deploy chunk-load errors share one fingerprint whatever their frames', async (t) => {
  const prints = new Set([
    groupEvent({ type: 'TypeError', message: 'Failed to fetch dynamically imported module: https://shop.example/assets/Cart-1234abcd.js', stack: '' }),
    groupEvent({ type: 'TypeError', message: 'error loading dynamically imported module: https://shop.example/assets/Home-99ff00aa.js', stack: '' }),
    groupEvent({ type: 'TypeError', message: 'Importing a module script failed.', stack: '@https://shop.example/assets/index-4f3a9c2b.js:1:1' }),
    groupEvent(thrownAt(['load (https://shop.example/static/js/main.8a7f6e5d.js:2:2)'], 'ChunkLoadError', 'Loading chunk 42 failed.')),
  ].map((r) => r.fingerprint))
  t.equal(prints.size, 1)
  t.not([...prints][0], groupEvent(chrome).fingerprint)
})

t.test('noise is marked for dropping with its reason, and still parsed', async (t) => {
  const dropped = groupEvent({ type: 'Error', message: 'ResizeObserver loop limit exceeded', stack: 'Error\n    at f (https://shop.example/a.js:1:1)' })
  t.equal(dropped.drop, 'resize-observer-loop')
  t.equal(dropped.frames.length, 1)
  t.equal(groupEvent({ type: '', message: 'Script error.', stack: '' }).drop, 'cross-origin-script-error')
  t.equal(groupEvent({ type: 'Error', message: 'x', stack: 'x@moz-extension://abc/content.js:1:1' }).drop, 'browser-extension')
  t.equal(groupEvent(chrome).drop, undefined)
})

t.test('the title is the raw type and message, trimmed and capped', async (t) => {
  t.equal(groupEvent(chrome).title, "TypeError: Cannot read properties of undefined (reading 'price')")
  t.equal(groupEvent({ type: ' RangeError ', message: ' Invalid array length 42 \n', stack: '' }).title, 'RangeError: Invalid array length 42')
  t.equal(groupEvent({ type: '', message: 'Script error.', stack: '' }).title, 'Script error.')
  t.equal(groupEvent({ type: 'Error', message: 'x'.repeat(500), stack: '' }).title.length, 200)
  t.equal(groupEvent({ type: 'E', message: `${'x'.repeat(196)}😀`, stack: '' }).title.length, 199, 'does not split an emoji')
})

t.test('the culprit is the top in-app frame with its file normalised, or empty', async (t) => {
  t.equal(groupEvent(chrome).culprit, '<anonymous> (/src/cart/summary.ts)')
  t.equal(groupEvent(thrownAt(['CartSummary.total (https://shop.example/assets/index-4f3a9c2b.js:1:1)'])).culprit, 'CartSummary.total (/assets/index-<hash>.js)')
  t.equal(groupEvent({ type: 'Error', message: 'x', stack: '' }).culprit, '')
})

t.test('results are deterministic and carry the version and frames', async (t) => {
  const a = groupEvent(chrome)
  t.same(groupEvent(structuredClone(chrome)), a)
  t.match(a.fingerprint, /^[0-9a-f]{32}$/)
  t.equal(a.version, 2)
  t.equal(a.frames.length, 5)
  t.same(a.frames.map((f) => f.inApp), [true, false, true, true, true])
})

t.test('picks the algorithm by stored version and refuses one it does not know', async (t) => {
  t.equal(CURRENT_GROUPING_VERSION, 4)
  t.equal(groupWith(chrome).version, 4, 'without a version, the current one')
  t.equal(groupEvent(chrome, 1).version, 1)
  t.same({ ...groupEvent(chrome, 1), version: 2 }, groupEvent(chrome), 'without symbolicated frames, version 2 is version 1')
  t.throws(() => groupEvent(chrome, 99), /Unknown grouping version 99/)
  t.throws(() => groupEvent(chrome, 0), /Unknown grouping version 0/)
})

t.test('never throws on garbage input', async (t) => {
  let seed = 99
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  const alphabet = 'at ()@:/\n*<>[]0123456789abcdef.-_\'"`\\\u0000é'
  const junk = (): string => Array.from({ length: Math.floor(random() * 200) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('')
  const prints = new Set<string>()
  for (let i = 0; i < 1000; i++) prints.add(groupEvent({ type: junk(), message: junk(), stack: junk(), url: junk() }).fingerprint)
  t.ok(prints.size > 1, 'and still tells inputs apart')
  const odd = groupEvent({ type: null, message: 42, stack: { at: 1 }, url: [] } as unknown as GroupingInput)
  t.equal(odd.title, 'Error')
  t.match(odd.fingerprint, /^[0-9a-f]{32}$/)
})

t.test('version 1 fingerprints never change: these were computed when it shipped', async (t) => {
  const pinned: Array<[GroupingInput, string]> = [
    [{ type: 'TypeError', message: "Cannot read properties of undefined (reading 'id')", stack: "TypeError: Cannot read properties of undefined (reading 'id')\n    at renderCart (http://localhost:5173/assets/index-4f3a9c2b.js:12:34)\n    at onClick (http://localhost:5173/assets/index-4f3a9c2b.js:40:7)", url: 'http://localhost:5173/cart' }, 'a1f4272089287bad0afbf72055e1cd14'],
    [{ type: 'Error', message: 'boom 42 at 0xdeadbeef', stack: '', url: 'https://a.example/' }, '0681a043ec8a37a1fe1fcedbd2b99d7f'],
    [{ type: 'TypeError', message: 'cart is undefined', stack: 'renderCart@https://shop.example/assets/app-1a2b3c4d.js:1:100\n@https://shop.example/assets/app-1a2b3c4d.js:1:200', url: 'https://shop.example/' }, '3c6b22ac83cf48f8bd2fec6c3cf2a3a3'],
  ]
  for (const [input, fingerprint] of pinned) t.equal(groupEvent(input, 1).fingerprint, fingerprint, input.message)
})

t.test('version 2 keys symbolicated frames by their original file and function; library originals are not in-app', async (t) => {
  const input = { type: 'TypeError', message: 'x', stack: 'TypeError: x\n    at a (https://shop.example/assets/app-1a2b3c4d.js:1:100)\n    at b (https://shop.example/assets/app-1a2b3c4d.js:1:200)', url: 'https://shop.example/' }
  const frames = parseFrames(input)
  const placed = (i: number, file: string, fn: string) => ({ ...frames[i]!, original: { file, line: 10 + i, column: 1, function: fn } })
  const symbolicated = groupEvent({ ...input, frames: [placed(0, 'src/Cart.tsx', 'renderCart'), placed(1, 'src/App.tsx', 'App')] })
  t.not(symbolicated.fingerprint, groupEvent(input).fingerprint, 'the original code is what is keyed')
  t.equal(symbolicated.culprit, 'renderCart (src/Cart.tsx)', 'the culprit names the original function and file')
  const renamed = parseFrames({ ...input, stack: input.stack.replaceAll('app-1a2b3c4d', 'app-9f8e7d6c').replaceAll(':1:', ':2:') })
  const nextDeploy = groupEvent({ ...input, frames: renamed.map((f, i) => ({ ...f, original: { file: i === 0 ? 'src/Cart.tsx' : 'src/App.tsx', line: 99, column: 1, function: i === 0 ? 'renderCart' : 'App' } })) })
  t.equal(nextDeploy.fingerprint, symbolicated.fingerprint, 'a new bundle of the same code is the same issue')
  const library = groupEvent({ ...input, frames: [placed(0, '../node_modules/react-dom/cjs/react-dom.js', 'commitRoot'), placed(1, 'src/App.tsx', 'App')] })
  t.equal(library.culprit, 'App (src/App.tsx)', 'a frame whose original is in node_modules is library code')
})
