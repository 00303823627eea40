import t from 'tap'
import { isExtensionFile, isInAppFrame, markInApp } from '../../../services/grouper/grouping/in-app.js'
import type { StackFrame } from '../../../services/grouper/grouping/types.js'

const frame = (file: string, extra: Partial<StackFrame> = {}): StackFrame => ({ function: 'f', file, line: 1, inApp: false, ...extra })

t.test('counts ordinary page and CDN scripts as the application', async (t) => {
  t.ok(isInAppFrame(frame('https://shop.example/assets/app.js')))
  t.ok(isInAppFrame(frame('https://cdn.example/app.js')))
  t.ok(isInAppFrame(frame('/srv/app/server.js')))
})

t.test('leaves out browser extensions of every browser', async (t) => {
  for (const file of [
    'chrome-extension://abc/content.js',
    'moz-extension://0f1e/content.js',
    'safari-extension://com.example/content.js',
    'safari-web-extension://A1B2/content.js',
    'webkit-masked-url://hidden/',
  ]) {
    t.ok(isExtensionFile(file), file)
    t.notOk(isInAppFrame(frame(file)), file)
  }
})

t.test('leaves out engine internals, code without a file, and installed packages', async (t) => {
  t.notOk(isInAppFrame(frame('[native code]', { native: true })), 'native code')
  t.notOk(isInAppFrame(frame('<anonymous>')), '<anonymous>')
  t.notOk(isInAppFrame(frame('')), 'no file')
  t.notOk(isInAppFrame(frame('https://shop.example/node_modules/.vite/deps/react-dom.js')), 'a package served by the dev server')
  t.notOk(isInAppFrame(frame('https://shop.example/node_modules/react-dom.js'), 'https://shop.example/'), 'even from the page origin')
})

t.test('counts frames from the page origin as the application, even an extension page', async (t) => {
  t.ok(isInAppFrame(frame('chrome-extension://myext/popup.js'), 'chrome-extension://MyExt/popup.html'))
  t.notOk(isInAppFrame(frame('chrome-extension://other/inject.js'), 'chrome-extension://myext/popup.html'))
})

t.test('marks copies of the frames and leaves the parsed ones untouched', async (t) => {
  const parsed = [frame('https://shop.example/app.js'), frame('moz-extension://x/c.js')]
  t.same(markInApp(parsed).map((f) => f.inApp), [true, false])
  t.same(parsed.map((f) => f.inApp), [false, false])
})
