import t from 'tap'
import { MAX_FRAMES, parseStack } from '../../services/grouper/grouping/stack-parse.js'

t.test('parses V8 stacks, skipping a multi-line message', async (t) => {
  const frames = parseStack([
    'Error: first line of the message',
    'second line that mentions at nothing',
    '    at renderCart (https://shop.example/assets/index-4f3a9c2b.js:10:5)',
    '    at https://shop.example/assets/index-4f3a9c2b.js:11:6',
    '    at async loadAll (https://shop.example/assets/data.js:1:2)',
    '    at new CartModel (https://shop.example/assets/model.js:3:4)',
    '    at eval (eval at compile (https://shop.example/assets/tpl.js:5:6), <anonymous>:3:4)',
    '    at Array.map (<anonymous>)',
  ].join('\n'))
  t.same(frames.map((f) => [f.function, f.file, f.line, f.column]), [
    ['renderCart', 'https://shop.example/assets/index-4f3a9c2b.js', 10, 5],
    ['', 'https://shop.example/assets/index-4f3a9c2b.js', 11, 6],
    ['loadAll', 'https://shop.example/assets/data.js', 1, 2],
    ['CartModel', 'https://shop.example/assets/model.js', 3, 4],
    ['compile', 'https://shop.example/assets/tpl.js', 5, 6],
    ['Array.map', '<anonymous>', undefined, undefined],
  ])
})

t.test('parses SpiderMonkey stacks, closures and async frames included', async (t) => {
  const frames = parseStack([
    'renderCart@https://shop.example/assets/index.js:10:5',
    '@https://shop.example/assets/index.js:11:6',
    'loadAll/<@https://shop.example/assets/data.js:1:2',
    'async*run@https://shop.example/assets/main.js:3:4',
  ].join('\n'))
  t.same(frames.map((f) => [f.function, f.line]), [['renderCart', 10], ['', 11], ['loadAll', 1], ['run', 3]])
})

t.test('parses JavaScriptCore stacks with global code and native frames', async (t) => {
  const frames = parseStack(['renderCart@https://shop.example/assets/index.js:10:5', 'global code@https://shop.example/assets/index.js:1:1', 'map@[native code]', '[native code]'].join('\n'))
  t.same(frames.map((f) => [f.function, f.native ?? false]), [['renderCart', false], ['', false], ['map', true], ['', true]])
})

t.test('a message containing an @ is not a frame', async (t) => {
  t.same(parseStack('Error: mail to someone@example.com failed'), [])
})

t.test('caps the number of frames', async (t) => {
  const stack = Array.from({ length: 400 }, (_, i) => `    at f${i} (https://x/a.js:${i}:1)`).join('\n')
  t.equal(parseStack(stack).length, MAX_FRAMES)
})

t.test('never throws on garbage', async (t) => {
  let seed = 7
  const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
  const alphabet = 'at ()@:/\n\t<>[]{}0123456789abc.-_*`\'"\\\u0000\u2028é'
  for (let i = 0; i < 2000; i++) {
    const text = Array.from({ length: Math.floor(random() * 300) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('')
    parseStack(text)
  }
  t.same(parseStack(undefined as unknown as string), [], 'not even on a non-string')
  t.pass('2000 random inputs parsed without an exception')
})
