import t from 'tap'
import {
  MAX_NORMALIZED_MESSAGE,
  normalizeFile,
  normalizeFunction,
  normalizeMessage,
  normalizeType,
} from '../../../services/grouper/grouping/normalize.js'

t.test('strips origins, ports, queries and fragments from files', async (t) => {
  t.equal(normalizeFile('https://shop.example:8443/src/cart.ts?t=1718000000#L2'), '/src/cart.ts')
  t.equal(normalizeFile('http://localhost:5173/src/cart.ts'), '/src/cart.ts')
  t.equal(normalizeFile('file:///home/app/src/cart.ts'), '/home/app/src/cart.ts')
  t.equal(normalizeFile('webpack-internal:///(app-pages-browser)/./src/page.js'), '/(app-pages-browser)/./src/page.js')
  t.equal(normalizeFile('blob:https://shop.example/123e4567-e89b-12d3-a456-426614174000'), '/<uuid>')
})

t.test('replaces the build hashes of common bundlers with a placeholder', async (t) => {
  const cases: Array<[string, string]> = [
    ['/assets/index-4f3a9c2b.js', '/assets/index-<hash>.js'], // Vite, hex-looking
    ['/assets/index-BkJ2n_3x.js', '/assets/index-<hash>.js'], // Vite base64url
    ['/assets/index-B-aX3_9q.js', '/assets/index-<hash>.js'], // Vite hash containing a dash
    ['/assets/CartPage-DxqLmPoa.js', '/assets/CartPage-<hash>.js'], // Vite hash of letters only
    ['/assets/style-a1b2c3d4.css', '/assets/style-<hash>.css'],
    ['/static/js/main.8a7f6e5d.chunk.js', '/static/js/main.<hash>.chunk.js'], // create-react-app
    ['/static/js/787.8a7f6e5d9c0b1a2f.js', '/static/js/787.<hash>.js'], // webpack [id].[contenthash]
    ['/assets/chunk-ABCD1234.js', '/assets/chunk-<hash>.js'], // esbuild
    ['/_next/static/chunks/pages/_app-3b1e9a2c4d5f6a7b.js', '/_next/static/chunks/pages/_app-<hash>.js'],
    ['/_next/static/Hk3Jd8s-Ab_92kLmnopqR/_buildManifest.js', '/_next/static/<hash>/_buildManifest.js'],
    ['/8a7f6e5d.js', '/<hash>.js'],
  ]
  for (const [file, expected] of cases) t.equal(normalizeFile(`https://cdn.example${file}`), expected, file)
})

t.test('leaves ordinary file names alone', async (t) => {
  const names = [
    '/src/format-datetime.ts',
    '/src/use-cart-state.ts',
    '/src/components/ItemList.tsx',
    '/static/js/src_pages_Home_tsx.js',
    '/vendor/react-dom.production.min.js',
    '/vendor/jquery-3.6.0.min.js',
    '/node_modules/.vite/deps/react.js',
  ]
  for (const name of names) t.equal(normalizeFile(`https://shop.example${name}`), name, name)
})

t.test('replaces variable parts of messages with placeholders', async (t) => {
  t.equal(
    normalizeMessage('Order 1234 for 123e4567-e89b-12d3-a456-426614174000 failed at 0x7ffe42 (digest 9f86d081884c7d65)'),
    'Order <n> for <uuid> failed at <hex> (digest <hex>)',
  )
  t.equal(normalizeMessage('Could not load https://api.example/v2/items?page=3 after 2.5 s'), 'Could not load <url> after <n> s')
  t.equal(normalizeMessage(`Unknown key 'colour', "size" or \`weight\``), 'Unknown key <value>, <value> or <value>')
})

t.test('an apostrophe inside a word does not open a quoted value', async (t) => {
  t.equal(normalizeMessage(`can't access property "id", item isn't ready`), "can't access property <value>, item isn't ready")
})

t.test('numbers of any length normalise alike, so ids do not split a message', async (t) => {
  t.equal(normalizeMessage('Order 7 failed'), normalizeMessage('Order 12345678901 failed'))
})

t.test('collapses whitespace and caps the length of messages', async (t) => {
  t.equal(normalizeMessage('  Network\n\n   error\t here '), 'Network error here')
  t.equal(normalizeMessage('word '.repeat(1000)).length, MAX_NORMALIZED_MESSAGE)
})

t.test('reconciles function names across engines', async (t) => {
  const cases: Array<[string, string]> = [
    ['Cart.render', 'render'], // V8 receiver
    ['Cart.total [as sum]', 'total'], // V8 alias
    ['Cart/render', 'render'], // SpiderMonkey nesting
    ['render', 'render'], // JavaScriptCore
    ['new Cart', 'Cart'],
    ['async load', 'load'],
    ['Object.<anonymous>', ''],
    ['HTMLButtonElement.<anonymous>', ''],
    ['setup/<', ''], // SpiderMonkey closure inside setup
    ['setup/onClick<', ''],
    ['anonymous', ''],
    ['', ''],
  ]
  for (const [name, expected] of cases) t.equal(normalizeFunction(name), expected, name)
})

t.test('normalises error types, counting an empty one as Error', async (t) => {
  t.equal(normalizeType(' TypeError '), 'TypeError')
  t.equal(normalizeType('Uncaught TypeError'), 'TypeError')
  t.equal(normalizeType(''), 'Error')
  t.equal(normalizeType(undefined), 'Error')
})
