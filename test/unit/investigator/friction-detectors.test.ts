import t from 'tap'
import { detectFriction, MAX_FINDINGS, type FrictionFinding } from '../../../services/matcher/friction/detectors.js'
import { addAlert, click, pageLoad, svcError, type RrwebEvent } from '../../helpers/browser/recording-fixture.js'

const T0 = Date.parse('2026-11-20T09:00:00.000Z')
const PAY = 'button#pay.primary.big "Pay now"'
/** The names Pay goes by: its id, and its words (no other button of the page reads them). */
const PAY_NAMES = ['button#pay', 'button "pay now"']

/** The fixture's shop page (heading, paragraph, the pay button) loaded at T0 on href. */
function shop(href = 'https://shop.example.com/checkout', at = T0, firstId = 1) {
  return pageLoad(at, href, { heading: 'Checkout', paragraph: 'Total: 42.00 EUR', button: 'Pay now' }, firstId)
}

/** A page whose body holds the given nodes, as meta and full snapshot. */
function page(at: number, href: string, body: Array<Record<string, unknown>>): RrwebEvent[] {
  const node = { type: 0, id: 1, childNodes: [{ type: 2, tagName: 'html', attributes: {}, id: 2, childNodes: [{ type: 2, tagName: 'body', attributes: {}, id: 3, childNodes: body }] }] }
  return [
    { type: 4, timestamp: at, data: { href, width: 1024, height: 640 } },
    { type: 2, timestamp: at + 5, data: { node, initialOffset: { left: 0, top: 0 } } },
  ]
}

function el(id: number, tagName: string, attributes: Record<string, string>, childNodes: Array<Record<string, unknown>> = []): Record<string, unknown> {
  return { type: 2, tagName, attributes, childNodes, id }
}

function txt(id: number, textContent: string): Record<string, unknown> {
  return { type: 3, textContent, id }
}

/** A mutation changing a text node's value (what a counter or a spinner label does). */
function textChange(at: number, id: number, value: string): RrwebEvent {
  return { type: 3, timestamp: at, data: { source: 0, texts: [{ id, value }], attributes: [], removes: [], adds: [] } }
}

/** Something at the end of the recording, so what came before was followed long enough to judge. */
function later(at: number): RrwebEvent {
  return { type: 3, timestamp: at, data: { source: 1, positions: [{ x: 1, y: 1, id: 3, timeOffset: 0 }] } }
}

function kinds(findings: FrictionFinding[]): string[] {
  return findings.map((finding) => `${finding.kind} ${finding.target} ${finding.page}`)
}

t.test('five clicks under a second apart on one button the page never answers are one rage click', async (t) => {
  const { events, buttonId } = shop()
  const clicks = [0, 400, 800, 1200, 1600].map((offset) => click(T0 + 1000 + offset, buttonId))
  const findings = detectFriction([...events, ...clicks, later(T0 + 10_000)])
  t.same(findings, [
    {
      kind: 'rage_click',
      page: '/checkout',
      target: PAY,
      screen: '/checkout',
      names: PAY_NAMES,
      subject: `${PAY} on /checkout`,
      at: T0 + 1000,
      clicks: 5,
      narrative: `Rage click: 5 clicks in 1.6 s on ${PAY} on /checkout; nothing changed on the page.`,
    },
  ], 'one finding for the burst, at its first click; its clicks are not also dead clicks')
})

t.test('two quick clicks are no rage click (each is a dead click, gathered as one)', async (t) => {
  const { events, buttonId } = shop()
  const findings = detectFriction([...events, click(T0 + 1000, buttonId), click(T0 + 1400, buttonId), later(T0 + 10_000)])
  t.same(kinds(findings), [`dead_click ${PAY} /checkout`])
  t.equal(findings[0]!.clicks, 2)
  t.equal(findings[0]!.narrative, `Dead click: 2 clicks in 0.4 s on ${PAY} on /checkout; after none of them did the page change or load within 1 s.`)
})

t.test('three clicks a second or more apart are no rage click', async (t) => {
  const { events, buttonId } = shop()
  const findings = detectFriction([...events, ...[0, 1000, 2000].map((offset) => click(T0 + 1000 + offset, buttonId)), later(T0 + 10_000)])
  t.same(findings.map((finding) => finding.kind), ['dead_click'])
})

t.test('clicks on two different targets make no rage click on either', async (t) => {
  const { events, buttonId } = shop()
  const headingId = 8
  const findings = detectFriction([...events, click(T0 + 1000, buttonId), click(T0 + 1300, headingId), click(T0 + 1600, buttonId), later(T0 + 10_000)])
  t.notOk(findings.some((finding) => finding.kind === 'rage_click'), 'two clicks on the button and one on the heading')
  t.same(kinds(findings), [`dead_click ${PAY} /checkout`], 'the heading is not a control, so only the button is judged dead')
})

t.test('a burst the page answered every time (a quantity stepper) is no rage click; one it answered once still is, and says so', async (t) => {
  const plus = el(10, 'button', { class: 'step' }, [txt(11, '+')])
  const count = el(12, 'span', { class: 'count' }, [txt(13, '1')])
  const events = page(T0, 'https://shop.example.com/cart', [plus, count])
  const stepping = [0, 300, 600, 900].flatMap((offset, i) => [click(T0 + 1000 + offset, 10), textChange(T0 + 1050 + offset, 13, String(i + 2))])
  t.same(detectFriction([...events, ...stepping, later(T0 + 10_000)]), [], 'four clicks, four changes')

  const stuck = [click(T0 + 1000, 10), textChange(T0 + 1050, 13, '2'), click(T0 + 1300, 10), click(T0 + 1700, 10), click(T0 + 2600, 10)]
  const [rage, ...rest] = detectFriction([...events, ...stuck, later(T0 + 10_000)])
  t.same(rest, [])
  t.equal(rage!.narrative, 'Rage click: 4 clicks in 1.6 s on button.step "+" on /cart; the page answered only 1 of them.', 'the change came after the first click only')
})

t.test('fast clicks in a text field are selecting text, not rage', async (t) => {
  const events = page(T0, 'https://shop.example.com/search', [el(10, 'input', { type: 'search', name: 'q' })])
  t.same(detectFriction([...events, click(T0 + 1000, 10), click(T0 + 1100, 10), click(T0 + 1200, 10), later(T0 + 10_000)]), [])
})

t.test('a click on the text inside a button counts for the button', async (t) => {
  const events = page(T0, 'https://shop.example.com/checkout', [el(10, 'button', { id: 'pay' }, [el(11, 'span', { class: 'label' }, [txt(12, 'Pay')]), el(13, 'svg', {})])])
  const findings = detectFriction([...events, click(T0 + 1000, 11), click(T0 + 1200, 13), click(T0 + 1400, 11), later(T0 + 10_000)])
  t.same(kinds(findings), ['rage_click button#pay "Pay" /checkout'], 'the span and the icon are the one button')
})

t.test('a click on a button after which nothing happens for a second is a dead click', async (t) => {
  const { events, buttonId } = shop()
  const findings = detectFriction([...events, click(T0 + 1000, buttonId), later(T0 + 3000)])
  t.same(findings, [{ kind: 'dead_click', page: '/checkout', target: PAY, screen: '/checkout', names: PAY_NAMES, subject: `${PAY} on /checkout`, at: T0 + 1000, clicks: 1, narrative: `Dead click on ${PAY} on /checkout: nothing changed on the page and no page loaded within 1 s.` }])
})

t.test('a click followed by a DOM mutation within 1 s is not dead; one whose change comes later is', async (t) => {
  const { events, buttonId, bodyId } = shop()
  t.same(detectFriction([...events, click(T0 + 1000, buttonId), addAlert(T0 + 1900, bodyId, 100, 'Paid'), later(T0 + 5000)]), [])
  t.same(kinds(detectFriction([...events, click(T0 + 1000, buttonId), addAlert(T0 + 2100, bodyId, 100, 'Paid'), later(T0 + 5000)])), [`dead_click ${PAY} /checkout`])
  const empty: RrwebEvent = { type: 3, timestamp: T0 + 1100, data: { source: 0, texts: [], attributes: [], removes: [], adds: [] } }
  t.same(kinds(detectFriction([...events, click(T0 + 1000, buttonId), empty, later(T0 + 5000)])), [`dead_click ${PAY} /checkout`], 'a mutation that changes nothing is no answer')
})

t.test('a click followed by a page load within 1 s is not dead', async (t) => {
  const { events, buttonId } = shop()
  const next = shop('https://shop.example.com/thanks', T0 + 1500, 500)
  t.same(detectFriction([...events, click(T0 + 1000, buttonId), ...next.events, later(T0 + 5000)]), [])
})

t.test('a click whose next page loads slowly is not dead while nothing else was clicked meanwhile, within 10 s', async (t) => {
  const { events, buttonId } = shop()
  const slow = shop('https://shop.example.com/thanks', T0 + 5000, 500)
  t.same(detectFriction([...events, click(T0 + 1000, buttonId), ...slow.events, later(T0 + 9000)]), [], 'the next page 4 s later')
  const between = detectFriction([...events, click(T0 + 1000, buttonId), click(T0 + 3000, buttonId), ...slow.events, later(T0 + 9000)])
  t.same(kinds(between), [`dead_click ${PAY} /checkout`], 'clicked again before it loaded: the first click was dead')
  const tooLate = shop('https://shop.example.com/thanks', T0 + 12_000, 500)
  t.same(kinds(detectFriction([...events, click(T0 + 1000, buttonId), ...tooLate.events, later(T0 + 15_000)])), [`dead_click ${PAY} /checkout`], 'more than 10 s later')
})

t.test('a link to an anchor answers by scrolling, a checkbox by its input: neither is dead', async (t) => {
  const events = page(T0, 'https://shop.example.com/faq', [el(10, 'a', { href: '#returns' }, [txt(11, 'Returns')]), el(12, 'div', { role: 'button' }, [txt(13, 'Accept')])])
  const scroll: RrwebEvent = { type: 3, timestamp: T0 + 1200, data: { source: 3, id: 1, x: 0, y: 900 } }
  const input: RrwebEvent = { type: 3, timestamp: T0 + 3010, data: { source: 5, id: 12, text: '', isChecked: true } }
  t.same(detectFriction([...events, click(T0 + 1000, 10), scroll, click(T0 + 3000, 12), input, later(T0 + 9000)]), [])
})

t.test('only controls can be dead: text, a link to a new tab or a download, mail and phone links are not judged', async (t) => {
  const events = page(T0, 'https://shop.example.com/help', [
    el(10, 'p', {}, [txt(11, 'Some text')]),
    el(12, 'a', { href: '/terms.pdf', target: '_blank' }, [txt(13, 'Terms')]),
    el(14, 'a', { href: '/invoice.pdf', download: '' }, [txt(15, 'Invoice')]),
    el(16, 'a', { href: 'mailto:help@example.com' }, [txt(17, 'Mail us')]),
    el(18, 'a', { href: '/contact' }, [txt(19, 'Contact')]),
  ])
  const findings = detectFriction([...events, ...[10, 12, 14, 16, 18].map((id, i) => click(T0 + 1000 + i * 2000, id)), later(T0 + 20_000)])
  t.same(kinds(findings), ['dead_click a "Contact" /help'])
})

t.test('a click in the last second of a recording is not judged: what followed was not recorded', async (t) => {
  const { events, buttonId } = shop()
  t.same(detectFriction([...events, click(T0 + 1000, buttonId), later(T0 + 1800)]), [])
})

t.test('an svc.error within 2 s after a click is an error after click on its target, and the click is not also dead', async (t) => {
  const { events, buttonId } = shop()
  const findings = detectFriction([...events, click(T0 + 1000, buttonId), svcError(T0 + 1100, 'e1', 'Payment provider answered 502'), later(T0 + 5000)])
  t.same(findings, [
    { kind: 'error_after_click', page: '/checkout', target: PAY, screen: '/checkout', names: PAY_NAMES, subject: 'Payment provider answered 502', at: T0 + 1000, clicks: 1, narrative: `Error after click on ${PAY} on /checkout: the error "Payment provider answered 502" 0.1 s later.` },
  ])
  const late = detectFriction([...events, click(T0 + 1000, buttonId), svcError(T0 + 3500, 'e2', 'Late'), later(T0 + 5000)])
  t.same(kinds(late), [`dead_click ${PAY} /checkout`], 'an error 2.5 s later is not the click\'s')
})

t.test('an error goes to the latest click before it', async (t) => {
  const { events } = shop()
  const other = page(T0 + 10_000, 'https://shop.example.com/checkout', [el(10, 'button', { id: 'apply' }, [txt(11, 'Apply coupon')]), el(12, 'button', { id: 'pay' }, [txt(13, 'Pay')])])
  const findings = detectFriction([...events, ...other, click(T0 + 11_000, 10), click(T0 + 11_500, 12), svcError(T0 + 12_000, 'e', 'boom'), later(T0 + 20_000)])
  t.same(kinds(findings), ['dead_click button#apply "Apply coupon" /checkout', 'error_after_click button#pay "Pay" /checkout'])
})

t.test('findings of one kind on one target and page gather while each comes within 10 s; later ones and other pages are their own', async (t) => {
  const { events, buttonId } = shop()
  const again = shop('https://shop.example.com/checkout?step=2', T0 + 60_000)
  const findings = detectFriction([
    ...events,
    click(T0 + 1000, buttonId),
    click(T0 + 4000, buttonId),
    click(T0 + 12_000, buttonId),
    click(T0 + 30_000, buttonId),
    ...again.events,
    click(T0 + 61_000, again.buttonId),
    later(T0 + 70_000),
  ])
  t.same(findings.map((finding) => [finding.kind, finding.page, finding.at - T0, finding.clicks]), [
    ['dead_click', '/checkout', 1000, 3],
    ['dead_click', '/checkout', 30_000, 1],
    ['dead_click', '/checkout?step=2', 61_000, 1],
  ], 'the page is the path and query of the address at that moment')
})

t.test('events not as rrweb writes them are passed over', async (t) => {
  const { events, buttonId } = shop()
  const junk = [null, 7, 'x', [], { type: 3 }, { type: 3, timestamp: 'soon', data: {} }, { type: 3, timestamp: T0 + 1200, data: [] }, { type: 3, timestamp: 1e300, data: { source: 0 } }, { type: 3, timestamp: T0 + 1300, data: { source: 0, adds: 'x', texts: [null, { id: 'a' }], attributes: [{ id: 4, attributes: 5 }], removes: [{}] } }, { type: 2, timestamp: T0 + 1400, data: { node: 'none' } }, { type: 5, timestamp: T0 + 1500, data: { tag: 'svc.error', payload: 'not an object' } }]
  t.same(kinds(detectFriction([...events, click(T0 + 1000, buttonId), ...junk.slice(0, 5), later(T0 + 3000)])), [`dead_click ${PAY} /checkout`])
  const found = detectFriction([...events, click(T0 + 1000, buttonId), ...junk])
  t.same(kinds(found), [`error_after_click ${PAY} /checkout`], 'the error without a payload still counts; the broken snapshot after it changes nothing before it')
  t.match(found[0]!.narrative, /an error without a message 0\.5 s later/)
})

t.test('a click before any http(s) page is known, or on a node the page never showed, is not judged', async (t) => {
  const blank = page(T0, 'about:blank', [el(10, 'button', {}, [txt(11, 'Go')])])
  t.same(detectFriction([...blank, click(T0 + 1000, 10), later(T0 + 5000)]), [])
  const { events } = shop()
  t.same(detectFriction([...events, click(T0 + 1000, 9999), later(T0 + 5000)]), [])
})

t.test('a recording yields at most MAX_FINDINGS findings, the earliest', async (t) => {
  // Sixty controls of their own: ids and words without digits (digits would make them one control, as a list's buttons are).
  const name = (i: number): string => String(i).replace(/\d/g, (digit) => 'abcdefghij'[Number(digit)]!)
  const buttons = Array.from({ length: 60 }, (_, i) => el(10 + 2 * i, 'button', { id: `b-${name(i)}` }, [txt(11 + 2 * i, `Button ${name(i)}`)]))
  const events = page(T0, 'https://shop.example.com/many', buttons)
  const findings = detectFriction([...events, ...buttons.map((_, i) => click(T0 + 1000 + i * 2000, 10 + 2 * i)), later(T0 + 200_000)])
  t.equal(findings.length, MAX_FINDINGS)
  t.equal(findings[0]!.target, 'button#b-a "Button a"')
  t.equal(findings.at(-1)!.target, `button#b-${name(MAX_FINDINGS - 1)} "Button ${name(MAX_FINDINGS - 1)}"`)
})
