import t from 'tap'
import { CHUNK_LOAD_KEY, classifyNoise, DROP_REASONS } from '../../../services/grouper/grouping/noise.js'
import { markInApp } from '../../../services/grouper/grouping/in-app.js'
import { parseStack } from '../../../services/grouper/grouping/stack-parse.js'

const framesOf = (stack: string, pageUrl?: string) => markInApp(parseStack(stack), pageUrl)
const appStack = 'Error: x\n    at render (https://shop.example/assets/app.js:1:1)'

t.test('drops both wordings of the ResizeObserver loop warning', async (t) => {
  for (const message of ['ResizeObserver loop limit exceeded', 'ResizeObserver loop completed with undelivered notifications.']) {
    t.same(classifyNoise('Error', message, []), { kind: 'drop', reason: DROP_REASONS.resizeObserverLoop }, message)
  }
})

t.test('drops a bare "Script error." that has no frames', async (t) => {
  t.same(classifyNoise('', 'Script error.', []), { kind: 'drop', reason: DROP_REASONS.scriptErrorWithoutStack })
  t.same(classifyNoise('Error', ' Script error ', []), { kind: 'drop', reason: DROP_REASONS.scriptErrorWithoutStack })
})

t.test('keeps a "Script error." that comes with frames, and longer messages that start alike', async (t) => {
  t.same(classifyNoise('Error', 'Script error.', framesOf(appStack)), { kind: 'keep' })
  t.same(classifyNoise('Error', 'Script error while loading plugin', []), { kind: 'keep' })
})

t.test('drops stacks made only of browser-extension frames, from every engine', async (t) => {
  const stacks = [
    'TypeError: x\n    at inject (chrome-extension://abcdefgh/content.js:1:1)\n    at Array.forEach (<anonymous>)',
    'inject@moz-extension://0f1e2d3c/content.js:4:2',
    'inject@safari-web-extension://A1B2C3/content.js:4:2\nforEach@[native code]',
    'inject@safari-extension://com.example.ext/content.js:4:2',
    '@webkit-masked-url://hidden/:1:1',
  ]
  for (const stack of stacks) {
    const frames = framesOf(stack)
    t.same(classifyNoise('TypeError', 'x', frames), { kind: 'drop', reason: DROP_REASONS.browserExtension }, frames[0]?.file ?? stack)
  }
})

t.test('keeps a stack where an extension frame sits among the application frames', async (t) => {
  const frames = framesOf('Error: x\n    at hook (chrome-extension://abc/hook.js:1:1)\n    at render (https://shop.example/app.js:2:2)')
  t.same(classifyNoise('Error', 'x', frames), { kind: 'keep' })
})

t.test('keeps errors from an application that is itself an extension', async (t) => {
  const frames = framesOf('Error: x\n    at save (chrome-extension://myext/popup.js:1:1)', 'chrome-extension://myext/popup.html')
  t.same(classifyNoise('Error', 'x', frames), { kind: 'keep' })
})

t.test('folds stale-deploy chunk-load errors of every engine and bundler into one key', async (t) => {
  const messages = [
    'Failed to fetch dynamically imported module: https://shop.example/assets/Cart-1234abcd.js',
    'error loading dynamically imported module: https://shop.example/assets/Home-99ff00aa.js',
    'Importing a module script failed.',
    'Unable to preload CSS for /assets/index-aa11bb22.css',
    'Loading chunk 42 failed.\n(error: https://shop.example/static/js/42.8a7f6e5d.chunk.js)',
    'Loading CSS chunk vendors-main failed.',
  ]
  for (const message of messages) t.same(classifyNoise('TypeError', message, framesOf(appStack)), { kind: 'fold', key: CHUNK_LOAD_KEY }, message)
  t.same(classifyNoise('ChunkLoadError', 'something else', []), { kind: 'fold', key: CHUNK_LOAD_KEY }, 'by type alone')
})

t.test('keeps an ordinary application error', async (t) => {
  t.same(classifyNoise('TypeError', "Cannot read properties of undefined (reading 'id')", framesOf(appStack)), { kind: 'keep' })
  t.same(classifyNoise('Error', 'Payment declined', []), { kind: 'keep' })
})
