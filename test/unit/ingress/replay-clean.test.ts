import t from 'tap'
import type { RrwebEvent } from '../../../services/recorder/read/chunks.js'
import { cleanCss } from '../../../services/recorder/read/replay/clean-css.js'
import { ReplayCleaner } from '../../../services/recorder/read/replay/clean-events.js'

const PNG = 'data:image/png;base64,iVBORw0KGgo='

t.test('CSS: every url() that would be fetched is emptied; data: images, #fragments and text are kept', async (t) => {
  const cases: Array<[string, string]> = [
    ['background: url(https://shop.example/bg.png) no-repeat red', 'background: url() no-repeat red'],
    ["background-image:url( 'https://shop.example/a.png' )", 'background-image:url()'],
    ['background-image: URL("//cdn.example/b.png")', 'background-image: url()'],
    ['@font-face { font-family: Shop; src: url(https://fonts.example/shop.woff2) format("woff2"), local(Arial) }', '@font-face { font-family: Shop; src: url() format("woff2"), local(Arial) }'],
    ['@font-face { src: url(data:font/woff2;base64,AAAA) }', '@font-face { src: url() }'],
    [`.a { background: url(${PNG}) } .b { filter: url(#blur) }`, `.a { background: url(${PNG}) } .b { filter: url(#blur) }`],
    ['.a::after { content: "url(https://x.example/y.png)" } /* url(https://x.example/z.png) */', '.a::after { content: "url(https://x.example/y.png)" } /* url(https://x.example/z.png) */'],
    ['.a { background: \\75 rl(https://x.example/escaped.png) }', '.a { background: url() }'],
    ['.a { background: u\\rl(https://x.example/escaped.png) }', '.a { background: url() }'],
    ['.a { background: url(https://x.example/a\\).png) red }', '.a { background: url() red }'],
    ['.a { background-image: image-set("https://x.example/1x.png" 1x, url(https://x.example/2x.png) 2x) }', '.a { background-image: image-set(url() 1x, url() 2x) }'],
    ['.a { background-image: -webkit-image-set("' + PNG + '" 1x) }', '.a { background-image: -webkit-image-set("' + PNG + '" 1x) }'],
    ['@import url("https://fonts.example/css?family=Shop");\n@import "https://x.example/more.css" screen;\nbody { color: red }', '\n\nbody { color: red }'],
    ['@namespace svg url(http://www.w3.org/2000/svg); svg|a { fill: red }', '@namespace svg url(http://www.w3.org/2000/svg); svg|a { fill: red }'],
    ['.wide { margin: 0 auto; color: #fff }', '.wide { margin: 0 auto; color: #fff }'],
    ['.a { background: url(https://x.example/unclosed.png', '.a { background: url()'],
  ]
  for (const [css, clean] of cases) t.equal(cleanCss(css), clean, css)
})

t.test('CSS: hostile text ends without throwing, and no URL is left in it', async (t) => {
  for (const css of ['\\', 'url(', '"', "'\\", '@', '@import', 'image-set(', ')))(((', 'u\\', '\\0 rl(x)', '/*', `${'('.repeat(10_000)}url(https://x.example/deep.png)`]) {
    const clean = cleanCss(css)
    t.type(clean, 'string', JSON.stringify(css.slice(0, 20)))
    t.notMatch(clean, 'x.example', JSON.stringify(css.slice(0, 20)))
  }
})

/** A full snapshot of a body holding the given elements (ids from 10). */
function snapshot(children: Array<Record<string, unknown>>): RrwebEvent {
  const body = { type: 2, tagName: 'body', attributes: {}, childNodes: children, id: 5 }
  const head = { type: 2, tagName: 'head', attributes: {}, childNodes: [{ type: 2, tagName: 'style', attributes: {}, id: 3, childNodes: [{ type: 3, textContent: '@import url(https://x.example/a.css); body { background: url(https://x.example/bg.png) }', isStyle: true, id: 4 }] }], id: 2 }
  const node = { type: 0, id: 0, childNodes: [{ type: 2, tagName: 'html', attributes: {}, childNodes: [head, body], id: 1 }] }
  return { type: 2, timestamp: 1, data: { node, initialOffset: { left: 0, top: 0 } } }
}

function element(id: number, tagName: string, attributes: Record<string, unknown>): Record<string, unknown> {
  return { type: 2, tagName, attributes, childNodes: [], id }
}

t.test('events: inline handlers, javascript: URLs and fetching attributes leave the snapshot; links, data: images and the rest stay', async (t) => {
  const events = [
    snapshot([
      element(10, 'form', { onsubmit: 'return false', action: '/pay', id: 'pay-form' }),
      element(11, 'button', { onClick: 'pay()', class: 'primary', style: 'background:url(https://x.example/b.png) #2450d8' }),
      element(12, 'a', { href: 'https://shop.example/terms', title: 'Terms' }),
      element(13, 'a', { href: '\t jAvA\nscript:alert(1)', id: 'evil' }),
      element(14, 'img', { src: 'https://shop.example/p.jpg', srcset: 'https://shop.example/p2.jpg 2x', alt: 'Product', width: '120', height: '80' }),
      element(15, 'img', { src: PNG, alt: 'inlined' }),
      element(16, 'link', { rel: 'stylesheet', href: 'https://fonts.example/css' }),
      element(17, 'iframe', { src: 'https://ads.example/', srcdoc: '<script>x()</script>' }),
      element(18, 'svg', {}),
      element(19, 'use', { href: '#icon-cart' }),
      element(20, 'image', { href: 'https://x.example/i.png' }),
      element(21, 'video', { src: 'https://x.example/v.mp4', poster: 'https://x.example/p.png' }),
      element(22, 'meta', { 'http-equiv': 'refresh', content: '0;url=https://away.example/' }),
      element(23, 'link', { _cssText: '.a { background: url(https://x.example/c.png) }' }),
      element(24, 'canvas', { rr_dataURL: PNG }),
      element(25, 'table', { background: 'https://x.example/t.png' }),
    ]),
  ]
  const [event] = new ReplayCleaner().clean(events)
  const text = JSON.stringify(event).replace('away.example', '')
  t.notMatch(text, /"on\w+"/i, 'no handler')
  t.notMatch(text, /script:/i, 'no javascript: URL')
  t.notMatch(text, 'x.example', 'nothing that fetches from elsewhere')
  t.notMatch(text, 'shop.example/p', 'not the images')
  t.notMatch(text, 'fonts.example', 'nor the stylesheet')
  t.notMatch(text, 'ads.example', 'nor the frame')
  const body = (event!.data.node as { childNodes: Array<{ childNodes: Array<{ childNodes: Array<{ id: number; attributes: Record<string, unknown> }> }> }> }).childNodes[0]!.childNodes[1]!.childNodes
  const attributes = (id: number): Record<string, unknown> => body.find((node) => node.id === id)!.attributes
  t.same(attributes(10), { action: '/pay', id: 'pay-form' })
  t.same(attributes(11), { class: 'primary', style: 'background:url() #2450d8' })
  t.same(attributes(12), { href: 'https://shop.example/terms', title: 'Terms' }, "a link's address stays: it is only followed when clicked")
  t.same(attributes(13), { id: 'evil' })
  t.same(attributes(14), { width: '120', height: '80' }, 'an image keeps its size, not its alt text (without a picture, alt text is drawn as a broken image)')
  t.same(attributes(15), { src: PNG, alt: 'inlined' }, 'an inlined image stays')
  t.same(attributes(16), { rel: 'stylesheet' })
  t.same(attributes(17), {})
  t.same(attributes(19), { href: '#icon-cart' }, 'a reference into the page stays')
  t.same(attributes(20), {})
  t.same(attributes(21), {})
  t.same(attributes(22), { content: '0;url=https://away.example/' }, 'a meta refresh no longer refreshes')
  t.same(attributes(23), { _cssText: '.a { background: url() }' })
  t.same(attributes(24), { rr_dataURL: PNG })
  t.same(attributes(25), {})
})

t.test('events: later changes are cleaned as the snapshot is, a removed value stays a removal, and font and canvas events go', async (t) => {
  const cleaner = new ReplayCleaner()
  cleaner.clean([snapshot([element(12, 'a', { href: '/cart' }), element(14, 'img', { alt: 'Product' }), element(30, 'div', {})])])
  const mutation: RrwebEvent = {
    type: 3,
    timestamp: 2,
    data: {
      source: 0,
      texts: [{ id: 4, value: 'body { background: url(https://x.example/later.png) }' }],
      attributes: [
        { id: 12, attributes: { href: 'javascript:pay()', onclick: 'pay()' } },
        { id: 14, attributes: { src: 'https://x.example/p.jpg', alt: 'Mug', title: 'A mug' } },
        { id: 30, attributes: { style: { 'background-image': 'url(https://x.example/s.png)', color: ['red', 'important'], margin: false } } },
        { id: 999, attributes: { href: 'https://x.example/unknown-node' } },
      ],
      removes: [],
      adds: [
        { parentId: 30, nextId: null, node: element(31, 'img', { src: 'https://x.example/added.png', onerror: 'x()', alt: 'Added' }) },
        { parentId: 3, nextId: null, node: { type: 3, textContent: '.b { background: url(https://x.example/text.png) }', id: 32 } },
      ],
    },
  }
  const rule: RrwebEvent = { type: 3, timestamp: 3, data: { source: 8, id: 3, adds: [{ rule: '.c { background: url(https://x.example/rule.png) }', index: 0 }], replaceSync: '@import url(https://x.example/i.css);' } }
  const declaration: RrwebEvent = { type: 3, timestamp: 4, data: { source: 13, id: 3, index: [0], set: { property: 'background', value: 'url(https://x.example/d.png)', priority: '' } } }
  const adopted: RrwebEvent = { type: 3, timestamp: 5, data: { source: 15, id: 1, styleIds: [1], styles: [{ styleId: 1, rules: [{ rule: '.d { background: url(https://x.example/a.png) }' }] }] } }
  const font: RrwebEvent = { type: 3, timestamp: 6, data: { source: 10, family: 'Shop', fontSource: 'url(https://x.example/f.woff2)', buffer: false } }
  const canvas: RrwebEvent = { type: 3, timestamp: 7, data: { source: 9, id: 24, type: 0, commands: [{ property: 'drawImage', args: [{ rr_type: 'HTMLImageElement', src: 'https://x.example/c.png' }] }] } }
  const click: RrwebEvent = { type: 3, timestamp: 8, data: { source: 2, type: 2, id: 12, x: 1, y: 2 } }
  const cleaned = cleaner.clean([mutation, rule, declaration, adopted, font, canvas, click])
  t.same(cleaned.map((event) => event.timestamp), [2, 3, 4, 5, 8], 'font and canvas events are left out; the others stay')
  t.notMatch(JSON.stringify(cleaned), 'x.example', 'no URL that fetches is left')
  const changes = (mutation.data.attributes as Array<{ id: number; attributes: Record<string, unknown> }>).map((change) => change.attributes)
  t.same(changes[0], { href: null }, "a link's change to a javascript: URL removes its address; the handler is not sent")
  t.same(changes[1], { src: null }, 'an image whose src changes to elsewhere loses its src')
  t.same(changes[2], { style: { 'background-image': 'url()', color: ['red', 'important'], margin: false } })
  t.same(changes[3], { href: null }, "a node the replay has not seen: its href could be a stylesheet's")
  t.same(mutation.data.texts, [{ id: 4, value: 'body { background: url() }' }], "a style element's text is CSS")
  t.same((mutation.data.adds as Array<{ node: unknown }>).map((add) => add.node), [element(31, 'img', {}), { type: 3, textContent: '.b { background: url() }', id: 32 }])
  t.same(rule.data.replaceSync, '')
})

t.test('events: odd shapes from a forged chunk are passed over, never thrown on', async (t) => {
  const odd: RrwebEvent[] = [
    { type: 2, timestamp: 1, data: { node: 'html' } },
    { type: 2, timestamp: 2, data: { node: { type: 2, tagName: 7, attributes: [], childNodes: {} } } },
    { type: 3, timestamp: 3, data: { source: 0, adds: 'x', attributes: [null, { id: 'a', attributes: 'b' }], texts: [1] } },
    { type: 3, timestamp: 4, data: { source: 8, adds: [{ rule: 5 }] } },
    { type: 3, timestamp: 5, data: { source: 13, set: 'x' } },
    { type: 3, timestamp: 6, data: { source: 15, styles: [null] } },
  ]
  t.equal(new ReplayCleaner().clean(odd).length, 6)
  let deep: Record<string, unknown> = element(1, 'img', { src: 'https://x.example/deep.png' })
  for (let i = 2; i < 200_000; i++) deep = { type: 2, tagName: 'div', attributes: {}, childNodes: [deep], id: i }
  const [event] = new ReplayCleaner().clean([{ type: 2, timestamp: 1, data: { node: deep } }])
  t.ok(event, 'a tree deeper than the stack is walked')
})
