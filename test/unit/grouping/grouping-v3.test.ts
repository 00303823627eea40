import t from 'tap'
import { canonicalMessage } from '../../../services/grouper/grouping/engine-messages.js'
import { groupEvent, type StackFrame } from '../../../services/grouper/grouping/index.js'
import { normalizeSourcePath } from '../../../shared/domain/source-path.js'
import { culpritOf, readableMessage } from '../../../services/grouper/grouping/title.js'

/** A minified frame a map placed at line of file, whose source line reads text. */
function mapped(fn: string, minified: { file: string; line: number; column: number }, file: string, line: number, text: string, earlier = 0, originalFn?: string): StackFrame {
  return { function: fn, ...minified, inApp: true, original: { file, line, column: 3, function: originalFn, context: { pre: [], line: text, post: [], earlier } } }
}

t.test('source paths read as the project names them', async (t) => {
  t.equal(normalizeSourcePath('../../src/profile.ts'), 'src/profile.ts')
  t.equal(normalizeSourcePath('webpack://shop/./src/cart.tsx?abc'), 'src/cart.tsx')
  t.equal(normalizeSourcePath('webpack://shop/src/cart.tsx'), 'src/cart.tsx', 'as trace-mapping resolves it')
  t.equal(normalizeSourcePath('webpack:///src/cart.tsx'), 'src/cart.tsx', 'an empty namespace')
  t.equal(normalizeSourcePath('vite:///src/main.ts'), 'src/main.ts')
  t.equal(normalizeSourcePath('../../node_modules/.pnpm/lib@1/node_modules/lib/index.js'), 'node_modules/lib/index.js')
})

t.test('engines word one error one way for fingerprints', async (t) => {
  const wordings = ["Cannot read properties of undefined (reading 'total')", 'can\'t access property "total", n is undefined', "undefined is not an object (evaluating 'n.total')"]
  t.same(new Set(wordings.map(canonicalMessage)), new Set(['property of undefined']))
  t.equal(canonicalMessage('n(...).track is not a function'), canonicalMessage("n().track is not a function. (In 'n().track()', 'n().track' is undefined)"))
  t.equal(canonicalMessage("Can't find variable: gtag"), 'gtag is not defined')
  t.equal(canonicalMessage('order 12 failed'), 'order 12 failed', 'an unknown wording is kept')
})

t.test('titles replace one user\'s data and minified names, and keep what the code wrote', async (t) => {
  t.equal(readableMessage('Checkout failed for "Alice" session=8812 order ORD-2024-0042 trace 4bf92f3577b34da6a3ce929d0e0e4736 at https://shop.example/x?id=3'), 'Checkout failed for <value> session=<n> order <id> trace <hex> at <url>')
  t.equal(readableMessage('n(...).track is not a function', '  getAnalytics().track("open", { id })'), 'getAnalytics(...).track is not a function')
  t.equal(readableMessage("Cannot read properties of undefined (reading 'total')"), "Cannot read properties of undefined (reading 'total')")
  t.equal(readableMessage('Unknown tab "billing"', "throw new Error('Unknown tab \"billing\"')"), 'Unknown tab "billing"', 'a quoted value on the throwing line is code')
  t.equal(readableMessage('base64 of utf8 failed'), 'base64 of utf8 failed')
})

t.test('an id the code wrote stays in the title; one user\'s id is masked', async (t) => {
  t.equal(readableMessage('h264Decoder is undefined', '  const frame = h264Decoder.decode(chunk)'), 'h264Decoder is undefined', 'the throwing line names it')
  t.equal(readableMessage('e.h264Decoder is not a function', '  return stream.h264Decoder(stream.frame)'), 'stream.h264Decoder is not a function', 'after its minified head is restored')
  t.equal(readableMessage("Cannot read properties of undefined (reading 'sha256Digest')"), "Cannot read properties of undefined (reading 'sha256Digest')", 'V8 quotes the property it read')
  t.equal(readableMessage("undefined is not an object (evaluating 'e.sha256Digest.length')"), "undefined is not an object (evaluating 'e.sha256Digest.length')", 'JavaScriptCore quotes the expression')
  t.equal(readableMessage('can\'t access property "sha256Digest", e is undefined'), 'can\'t access property "sha256Digest", e is undefined', 'SpiderMonkey quotes the property')
  t.equal(readableMessage('h264Decoder is not defined'), 'h264Decoder is not defined', 'a ReferenceError names a variable')
  t.equal(readableMessage("Can't find variable: h264Decoder"), "Can't find variable: h264Decoder")
  t.equal(readableMessage('h264Decoder is undefined'), '<id> is undefined', 'without the throwing line, an id may be anybody\'s')
  t.equal(readableMessage('Order ORD-2024-0042 not found', '  throw new HttpError(404, `Order ${orderId} not found`)'), 'Order <id> not found', 'a value the line interpolates is one user\'s')
  t.equal(readableMessage('Order ORD-2024-0042 not found', "  if (id === 'ORD-2024-00421') throw new Error(`Order ${id} not found`)"), 'Order <id> not found', 'only a whole token of the line counts')
  t.equal(readableMessage('Unknown region eu-west-123', "  throw new Error('Unknown region eu-west-123')"), 'Unknown region eu-west-123', 'a constant of the line is code')
  t.equal(readableMessage('{"ORD-2024-0042":1} is not an order'), '{"<id>":<n>} is not an order', 'an id as a JSON key is data')
  t.equal(readableMessage('h264Decoder is undefined', '  const frame = h264Decoder.decode(chunk)', false), '<id> is undefined', 'the masked reading masks every id')
})

t.test('culprits name the function, the project path and the line', async (t) => {
  t.equal(culpritOf(mapped('b', { file: 'https://x/assets/index-1a2b3c4d.js', line: 1, column: 900 }, '../../src/profile.ts', 42, 'x', 0, 'shippingLabel')), 'shippingLabel (src/profile.ts:42)')
  t.equal(culpritOf({ function: 'b', file: 'https://x/assets/index-1a2b3c4d.js', line: 1, column: 9, inApp: true }), '<anonymous> (/assets/index-<hash>.js)', 'never a minified name')
})

const BUNDLE = { file: 'https://shop.example/assets/index-1a2b3c4d.js', line: 1, column: 100 }

t.test('version 3: the throw site decides, by the text of its line', async (t) => {
  const group = (frames: StackFrame[], message = 'bad', type = 'Error') => groupEvent({ type, message, stack: 'x', frames }, 3)
  const throwLine = mapped('a', BUNDLE, '../../src/format.ts', 10, '  throw new Error(`no label for ${order.id}`)', 0, 'shippingLabel')
  const fromA = group([throwLine, mapped('c', { ...BUNDLE, column: 500 }, '../../src/orders.ts', 5, 'shippingLabel(order)')])
  const fromB = group([throwLine, mapped('d', { ...BUNDLE, column: 800 }, '../../src/profile.ts', 9, 'const label = shippingLabel(o)')])
  t.equal(fromA.fingerprint, fromB.fingerprint, 'callers do not split one defect')
  t.equal(fromA.version, 3)
  const shifted = group([mapped('q', { ...BUNDLE, column: 7 }, '../../src/format.ts', 31, 'throw   new Error(`no label for ${order.id}`)', 0, 'zz')], 'other words')
  t.equal(shifted.fingerprint, fromA.fingerprint, 'a rebuild that renames and shifts lines keeps the issue; the message does not count')
  const second = group([mapped('a', BUNDLE, '../../src/format.ts', 12, "  throw new Error('no address')", 0, 'shippingLabel')])
  t.not(second.fingerprint, fromA.fingerprint, 'two throws in one function are two issues')
  const twin = group([mapped('a', BUNDLE, '../../src/format.ts', 40, '  throw new Error(`no label for ${order.id}`)', 1)])
  t.not(twin.fingerprint, fromA.fingerprint, 'an identical line later in the file is another site')
  t.equal(fromA.culprit, 'shippingLabel (src/format.ts:10)')
  t.equal(fromA.quality, 3)
})

t.test('version 3: the constructor of an Error subclass and throw helpers are not the site', async (t) => {
  const site = mapped('s', BUNDLE, 'src/profile.ts', 20, "if (!email) throw new ValidationError('email missing')", 0, 'saveProfile')
  const firefox = groupEvent({ type: 'ValidationError', message: 'email missing', stack: 'x', frames: [mapped('t', { ...BUNDLE, column: 50 }, 'src/errors.ts', 3, '    super(message)'), site] }, 3)
  const chromium = groupEvent({ type: 'ValidationError', message: 'email missing', stack: 'x', frames: [site] }, 3)
  t.equal(firefox.fingerprint, chromium.fingerprint, 'one bug, one issue in both engines')
  const helper = mapped('h', BUNDLE, 'src/assert.ts', 2, 'if (!ok) throw new Error(message)', 0, 'invariant')
  const one = groupEvent({ type: 'Error', message: 'm', stack: 'x', frames: [helper, mapped('c', BUNDLE, 'src/cart.ts', 8, "invariant(cart.items, 'cart has items')")] }, 3)
  const two = groupEvent({ type: 'Error', message: 'm', stack: 'x', frames: [helper, mapped('c', BUNDLE, 'src/cart.ts', 30, "invariant(user, 'signed in')")] }, 3)
  t.not(one.fingerprint, two.fingerprint, 'two invariants that fail are two defects')
})

t.test('version 3: an ambiguous site adds the message template; no stack says why', async (t) => {
  const stack = 'TypeError: x\n    at b (https://shop.example/assets/index-1a2b3c4d.js:1:200)'
  const a = groupEvent({ type: 'TypeError', message: 'order 1 failed', stack }, 3)
  const b = groupEvent({ type: 'TypeError', message: 'order 2 failed', stack: stack.replace('1a2b3c4d', '9f9f9f9f').replace(':200', ':900') }, 3)
  const c = groupEvent({ type: 'TypeError', message: 'cart empty', stack }, 3)
  t.equal(a.fingerprint, b.fingerprint, 'a minified name and position do not count')
  t.not(a.fingerprint, c.fingerprint, 'the message tells two defects at one unmapped site apart')
  t.equal(a.quality, 1)
  const rejection = groupEvent({ type: 'Error', message: 'order 8812 failed', stack: '', thrown: 'string' }, 3)
  t.equal(rejection.stackNote, 'not_an_error')
  t.equal(rejection.title, 'Error: order <n> failed')
  t.equal(groupEvent({ type: 'Error', message: 'order 9 failed', stack: '', thrown: 'string' }, 3).fingerprint, rejection.fingerprint)
  t.equal(groupEvent({ type: 'Error', message: 'Script error.', stack: '' }, 3).stackNote, 'cross_origin')
  t.equal(groupEvent({ type: 'Error', message: 'boom', stack: '' }, 3).stackNote, 'no_stack')
  t.equal(groupEvent({ type: 'Error', message: 'boom', stack: 'Error: boom\n    at JSON.parse (<anonymous>)' }, 3).stackNote, 'native_only')
  t.equal(groupEvent({ type: 'Error', message: 'boom', stack: 'Error: boom\n    at f (https://cdn.example/node_modules/lib/x.js:1:1)' }, 3).stackNote, 'no_app_frames')
  const noise = groupEvent({ type: 'Error', message: 'ResizeObserver loop limit exceeded', stack: '' }, 3)
  t.equal(noise.drop, 'resize-observer-loop', 'noise is marked (and stored by the grouper)')
  t.not(noise.fingerprint, groupEvent({ type: 'Error', message: 'ResizeObserver loop limit exceeded', stack: '' }, 2).fingerprint, 'version 3 fingerprints never meet older ones')
})

t.test('version 3: a fetch() that got no answer is keyed by the failed request, stack or none', async (t) => {
  const { lastFailedRequest } = await import('../../../services/grouper/grouping/request.js')
  const crumbs = (url: string, status?: number) => [{ type: 'click', message: 'button' }, { type: 'http', message: `get ${url}`, data: { method: 'GET', status } }]
  t.equal(lastFailedRequest(crumbs('https://shop.example/api/orders/8812?x=1')), 'GET /api/orders/<n>')
  t.equal(lastFailedRequest(crumbs('https://shop.example/api/orders/8812', 200)), undefined, 'an answered request is not the failure')
  const chromium = groupEvent({ type: 'TypeError', message: 'Failed to fetch', stack: 'TypeError: Failed to fetch\n    at load (https://shop.example/assets/index-1a2b3c4d.js:1:10)', failedRequest: 'GET /api/orders/<n>' }, 3)
  const firefox = groupEvent({ type: 'TypeError', message: 'NetworkError when attempting to fetch resource.', stack: '', failedRequest: 'GET /api/orders/<n>' }, 3)
  const other = groupEvent({ type: 'TypeError', message: 'Load failed', stack: '', failedRequest: 'GET /api/cart' }, 3)
  t.equal(chromium.fingerprint, firefox.fingerprint)
  t.not(firefox.fingerprint, other.fingerprint, 'another endpoint is another issue')
})
