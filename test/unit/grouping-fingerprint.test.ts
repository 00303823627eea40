import t from 'tap'
import { groupEvent } from '../../services/grouper/grouping/index.js'
import { classifyNoise } from '../../services/grouper/grouping/noise.js'
import { normalizeFile, normalizeMessage } from '../../services/grouper/grouping/normalize.js'

const chrome = {
  type: 'TypeError',
  message: "Cannot read properties of undefined (reading 'id')",
  stack: "TypeError: Cannot read properties of undefined (reading 'id')\n    at renderCart (https://shop.example/src/Cart.tsx:12:5)\n    at onClick (https://shop.example/src/Button.tsx:40:7)",
}
const firefox = {
  type: 'TypeError',
  message: 'can\'t access property "id", item is undefined',
  stack: 'renderCart@https://shop.example/src/Cart.tsx:12:9\nonClick@https://shop.example/src/Button.tsx:40:3',
}
const safari = {
  type: 'TypeError',
  message: "undefined is not an object (evaluating 'item.id')",
  stack: 'renderCart@https://shop.example/src/Cart.tsx:12:14\nonClick@https://shop.example/src/Button.tsx:40:11',
}

t.test('one bug thrown in Chrome, Firefox and Safari is one fingerprint despite different wording', async (t) => {
  const a = groupEvent(chrome)
  t.equal(groupEvent(firefox).fingerprint, a.fingerprint)
  t.equal(groupEvent(safari).fingerprint, a.fingerprint)
  t.equal(a.culprit, 'renderCart (/src/Cart.tsx)')
  t.equal(a.title, "TypeError: Cannot read properties of undefined (reading 'id')")
})

t.test('a new deploy (different asset hashes, host) keeps the fingerprint', async (t) => {
  const before = groupEvent({ ...chrome, stack: 'TypeError: x\n    at render (https://a.example/assets/index-4f3a9c2b.js:1:100)' })
  const after = groupEvent({ ...chrome, stack: 'TypeError: x\n    at render (https://cdn.example/assets/index-9d8e7f6a.js:1:250)' })
  t.equal(after.fingerprint, before.fingerprint)
})

t.test('two anonymous throw sites in one file are two fingerprints; named ones ignore the line', async (t) => {
  const at = (line: number, name = '') => groupEvent({ type: 'Error', message: 'x', stack: `Error: x\n    at ${name ? `${name} (` : ''}https://a/app.js:${line}:1${name ? ')' : ''}` })
  t.not(at(10).fingerprint, at(20).fingerprint)
  t.equal(at(10, 'save').fingerprint, at(20, 'save').fingerprint)
})

t.test('without frames, messages differing only in numbers, ids and quoted values share a fingerprint', async (t) => {
  const a = groupEvent({ type: 'Error', message: 'Order 1234 failed for 123e4567-e89b-12d3-a456-426614174000: "out of stock"', stack: '' })
  const b = groupEvent({ type: 'Error', message: 'Order 98 failed for 00000000-0000-4000-8000-000000000001: "expired"', stack: '' })
  const c = groupEvent({ type: 'Error', message: 'Payment declined', stack: '' })
  t.equal(a.fingerprint, b.fingerprint)
  t.not(a.fingerprint, c.fingerprint)
})

t.test('different error types in the same place are different issues', async (t) => {
  t.not(groupEvent({ ...chrome, type: 'RangeError' }).fingerprint, groupEvent(chrome).fingerprint)
})

t.test('noise: ResizeObserver loops, bare Script error and extension-only stacks are dropped', async (t) => {
  t.equal(groupEvent({ type: 'Error', message: 'ResizeObserver loop limit exceeded', stack: '' }).drop, 'resize-observer-loop')
  t.equal(groupEvent({ type: 'Error', message: 'ResizeObserver loop completed with undelivered notifications.', stack: '' }).drop, 'resize-observer-loop')
  t.equal(groupEvent({ type: '', message: 'Script error.', stack: '' }).drop, 'cross-origin-script-error')
  t.equal(groupEvent({ type: 'Error', message: 'boom', stack: 'Error: boom\n    at x (chrome-extension://abc/content.js:1:1)' }).drop, 'browser-extension')
  t.equal(groupEvent({ type: 'Error', message: 'boom', stack: 'x@moz-extension://abc/content.js:1:1' }).drop, 'browser-extension')
  t.equal(groupEvent({ type: 'Error', message: 'Script error.', stack: 'Error\n    at f (https://a/app.js:1:1)' }).drop, undefined, 'a Script error with frames is kept')
  t.equal(groupEvent(chrome).drop, undefined)
})

t.test('noise: stale-deploy chunk-load errors from every engine fold into one fingerprint', async (t) => {
  const messages = [
    'Failed to fetch dynamically imported module: https://a/assets/Cart-1234abcd.js',
    'error loading dynamically imported module: https://a/assets/Home-99ff00aa.js',
    'Importing a module script failed.',
    'Unable to preload CSS for /assets/index-aa11bb22.css',
    'Loading chunk 42 failed.',
  ]
  const prints = new Set(messages.map((message) => groupEvent({ type: 'TypeError', message, stack: '' }).fingerprint))
  t.equal(prints.size, 1)
  t.same(classifyNoise('ChunkLoadError', 'x', []), { kind: 'fold', key: 'chunk-load' })
})

t.test('normalisation strips origins, queries and build hashes, and placeholders variable message parts', async (t) => {
  t.equal(normalizeFile('https://x.example:8443/assets/index-4f3a9c2b.js?v=2#x'), '/assets/index-<hash>.js')
  t.equal(normalizeFile('http://localhost:5173/assets/index-BkJ2n_3x.js'), '/assets/index-<hash>.js')
  t.equal(normalizeFile('/static/js/main.8a7f6e5d.chunk.js'), '/static/js/main.<hash>.chunk.js')
  t.equal(normalizeFile('https://a/src/format-date.ts'), '/src/format-date.ts', 'plain names are kept')
  t.equal(normalizeMessage("Failed 42 at 0xdeadbeef for 'abc' see https://x/y"), 'Failed <n> at <hex> for <value> see <url>')
})

t.test('an unknown grouping version is refused rather than guessed', async (t) => {
  t.throws(() => groupEvent(chrome, 99), /Unknown grouping version 99/)
})
