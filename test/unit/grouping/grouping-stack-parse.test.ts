import t from 'tap'
import { MAX_FRAMES, parseStack } from '../../../services/grouper/grouping/stack-parse.js'
import type { StackFrame } from '../../../services/grouper/grouping/types.js'

const summary = (frames: StackFrame[]) => frames.map((f) => [f.function, f.file, f.line, f.column])

t.test('parses a Chrome stack and skips its message, even one spanning lines', async (t) => {
  const message = 'Checkout failed:\nthe basket was empty\n    at first glance (this line is message text)'
  const stack = [
    `Error: ${message}`,
    '    at submitOrder (https://shop.example/assets/checkout-4f3a9c2b.js:120:15)',
    '    at https://shop.example/assets/checkout-4f3a9c2b.js:131:9',
    '    at new CheckoutForm (https://shop.example/assets/form.js:3:4)',
    '    at async placeOrder (https://shop.example/assets/orders.js:88:5)',
    '    at async Promise.all (index 0)',
  ].join('\n')
  t.same(summary(parseStack(stack, message)), [
    ['submitOrder', 'https://shop.example/assets/checkout-4f3a9c2b.js', 120, 15],
    ['', 'https://shop.example/assets/checkout-4f3a9c2b.js', 131, 9],
    ['CheckoutForm', 'https://shop.example/assets/form.js', 3, 4],
    ['placeOrder', 'https://shop.example/assets/orders.js', 88, 5],
    ['Promise.all', 'index 0', undefined, undefined],
  ])
  t.equal(parseStack(stack, message)[4]!.native, true, 'Promise.all bookkeeping is engine-internal')
})

t.test('a V8 message line containing an @ never becomes a frame', async (t) => {
  const stack = 'Error: could not mail ops@https://status.example:80\n    at notify (https://a.example/app.js:5:1)'
  t.same(summary(parseStack(stack)), [['notify', 'https://a.example/app.js', 5, 1]])
})

t.test('attributes V8 eval frames to the site that called eval, however deeply nested', async (t) => {
  const frames = parseStack([
    'ReferenceError: total is not defined',
    '    at eval (eval at compileTemplate (https://shop.example/assets/tpl.js:5:6), <anonymous>:3:4)',
    '    at render (eval at <anonymous> (eval at load (webpack-internal:///(app-pages-browser)/./src/page.js:7:8)), <anonymous>:1:1)',
    '    at eval (eval at <anonymous>, <anonymous>:1:1)',
    '    at Array.map (<anonymous>)',
  ].join('\n'))
  t.same(summary(frames), [
    ['eval', 'https://shop.example/assets/tpl.js', 5, 6],
    ['render', 'webpack-internal:///(app-pages-browser)/./src/page.js', 7, 8],
    ['eval', '<anonymous>', undefined, undefined],
    ['Array.map', '<anonymous>', undefined, undefined],
  ])
})

t.test('keeps V8 receiver names and file paths with spaces and parentheses intact', async (t) => {
  const frames = parseStack([
    'TypeError: x',
    '    at Cart.total [as sum] (https://shop.example/cart.js:1:2)',
    '    at Object.<anonymous> (/srv/app (copy)/server.js:10:3)',
    '    at <anonymous>:1:5',
  ].join('\n'))
  t.same(summary(frames), [
    ['Cart.total [as sum]', 'https://shop.example/cart.js', 1, 2],
    ['Object.<anonymous>', '/srv/app (copy)/server.js', 10, 3],
    ['', '<anonymous>', 1, 5],
  ])
})

t.test('parses a Firefox stack with closures, async frames and eval', async (t) => {
  const frames = parseStack([
    'submitOrder@https://shop.example/assets/checkout.js:120:22',
    '@https://shop.example/assets/checkout.js:131:3',
    'loadAll/<@https://shop.example/assets/data.js:14:9',
    'async*placeOrder@https://shop.example/assets/orders.js:88:11',
    'promise callback*init@https://shop.example/assets/main.js:3:4',
    'compute@https://shop.example/assets/tpl.js line 2 > eval:1:5',
    'inner@https://shop.example/assets/tpl.js line 9 > eval line 1 > Function:1:1',
    '@debugger eval code:1:1',
    '',
  ].join('\n'))
  t.same(summary(frames), [
    ['submitOrder', 'https://shop.example/assets/checkout.js', 120, 22],
    ['', 'https://shop.example/assets/checkout.js', 131, 3],
    ['loadAll/<', 'https://shop.example/assets/data.js', 14, 9],
    ['placeOrder', 'https://shop.example/assets/orders.js', 88, 11],
    ['init', 'https://shop.example/assets/main.js', 3, 4],
    ['compute', 'https://shop.example/assets/tpl.js', 2, undefined],
    ['inner', 'https://shop.example/assets/tpl.js', 9, undefined],
  ])
  t.same(frames.map((f) => f.asyncCause), [undefined, undefined, undefined, 'async', 'promise callback', undefined, undefined])
})

t.test('parses a Safari stack with global code, module code and native frames', async (t) => {
  const frames = parseStack([
    'submitOrder@https://shop.example/assets/checkout.js:120:30',
    'map@[native code]',
    '[native code]',
    'global code@https://shop.example/assets/checkout.js:1:1',
    'module code@https://shop.example/assets/main.js:2:8',
    'https://shop.example/assets/main.js:4:2',
  ].join('\n'))
  t.same(summary(frames), [
    ['submitOrder', 'https://shop.example/assets/checkout.js', 120, 30],
    ['map', '[native code]', undefined, undefined],
    ['', '[native code]', undefined, undefined],
    ['', 'https://shop.example/assets/checkout.js', 1, 1],
    ['', 'https://shop.example/assets/main.js', 2, 8],
    ['', 'https://shop.example/assets/main.js', 4, 2],
  ])
  t.same(frames.map((f) => f.native === true), [false, true, true, false, false, false])
})

t.test('prose with an @ in a Firefox or Safari stack is not a frame', async (t) => {
  t.same(parseStack('Error: mail to someone@example.com failed\nsee the docs'), [])
})

t.test('leaves every frame out of the application until in-app rules decide', async (t) => {
  t.same(parseStack('f@https://a.example/app.js:1:1\n    ').map((f) => f.inApp), [false])
})

t.test('stops at the frame cap', async (t) => {
  const stack = Array.from({ length: 400 }, (_, i) => `    at f${i} (https://x.example/a.js:${i + 1}:1)`).join('\n')
  const frames = parseStack(stack)
  t.equal(frames.length, MAX_FRAMES)
  t.equal(frames[0]!.function, 'f0', 'keeps the frames nearest the throw')
})

t.test('never throws on garbage, whatever its shape', async (t) => {
  let seed = 20240611
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  const pieces = ['at ', ' (', ')', '@', ':', '12', '/<', '*', 'eval at ', ' line 3 > eval', '[native code]', '\n', 'https://', '\u0000', '\u2028', 'é', '\r\n', ' ', 'x']
  let frames = 0
  for (let i = 0; i < 3000; i++) {
    const text = Array.from({ length: Math.floor(random() * 80) }, () => pieces[Math.floor(random() * pieces.length)]).join('')
    frames += parseStack(text, text.slice(0, 20)).length
  }
  t.ok(frames > 0, 'some garbage looked enough like frames to parse, so the deep paths ran')
  for (const odd of [undefined, null, 42, {}, ['at f (x:1:1)']]) t.same(parseStack(odd), [], `returns no frames for ${JSON.stringify(odd)}`)
})

t.test('parses a hostile megabyte of stack in well under a second', async (t) => {
  const started = Date.now()
  parseStack(`Error\n    at ${' ('.repeat(2000)}\n`.repeat(300) + `x@${'a:1'.repeat(1300)}\n`.repeat(300))
  t.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`)
})
