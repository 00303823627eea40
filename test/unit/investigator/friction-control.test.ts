import t from 'tap'
import { CONTROL_NAMES_MAX, foldLabel, sameControl, screenOf, stableId, withNames } from '../../../services/matcher/friction/control.js'
import { detectFriction } from '../../../services/matcher/friction/detectors.js'
import { subjectOf } from '../../../services/matcher/friction/narrative.js'
import { PageModel } from '../../../services/matcher/friction/page-model.js'
import type { RrwebEvent } from '../../helpers/browser/recording-fixture.js'

const T0 = Date.parse('2026-11-20T09:00:00.000Z')

function el(id: number, tagName: string, attributes: Record<string, unknown>, childNodes: Array<Record<string, unknown>> = []): Record<string, unknown> {
  return { type: 2, tagName, attributes, childNodes, id }
}

function txt(id: number, textContent: string): Record<string, unknown> {
  return { type: 3, textContent, id }
}

function documentOf(body: Array<Record<string, unknown>>): Record<string, unknown> {
  return { type: 0, id: 1, childNodes: [el(2, 'html', {}, [el(3, 'body', {}, body)])] }
}

function modelOf(...body: Array<Record<string, unknown>>): PageModel {
  const model = new PageModel()
  model.replace(documentOf(body))
  return model
}

t.test('an id names a control unless a framework numbered it; words are folded as a person reads them', async (t) => {
  t.equal(stableId('pay'), 'pay')
  t.equal(stableId('save-card'), 'save-card')
  for (const generated of [':r1:', 'ember123', 'mui-42', 'remove-1']) t.equal(stableId(generated), '', `${generated} is numbered`)
  t.equal(foldLabel('  Pay 42.00 EUR '), foldLabel('pay 13.50 eur'), 'a price in a button is not its name')
  t.equal(foldLabel('Ｐａｙ\u00a0now!'), 'pay now', 'compatibility forms, spaces and punctuation fold')
  t.equal(foldLabel('Payer maintenant'), 'payer maintenant')
})

t.test('a screen is a path without its query, its record ids and a trailing slash', async (t) => {
  const cases: Array<[string, string]> = [
    ['/checkout', '/checkout'],
    ['/checkout?step=card&coupon=X', '/checkout'],
    ['/checkout/', '/checkout'],
    ['/checkout/shipping', '/checkout/shipping'],
    ['/orders/1001', '/orders/:id'],
    ['/orders/1002/items/7?tab=x', '/orders/:id/items/:id'],
    ['/u/0f8fad5b-d9cb-469f-a165-70867728950e/settings', '/u/:id/settings'],
    ['/p/8f3kz91qx12lm77a', '/p/:id'],
    ['/blog/summer-sale-2026', '/blog/summer-sale-2026'],
    ['/step2', '/step2'],
    ['/', '/'],
    ['', '/'],
    ['/?q=shoes', '/'],
  ]
  for (const [page, screen] of cases) t.equal(screenOf(page), screen, page)
})

t.test('one control is the same screen and a name in common; a known problem keeps its first names and its latest', async (t) => {
  const pay = { screen: '/checkout', names: ['button#pay', 'button "pay"'] }
  t.ok(sameControl(pay, { screen: '/checkout', names: ['button#pay', 'button "pay now"'] }), 'its text changed')
  t.ok(sameControl(pay, { screen: '/checkout', names: ['button#pay-button', 'button "pay"'] }), 'its id changed')
  t.notOk(sameControl(pay, { screen: '/checkout', names: ['button#complete', 'button "complete purchase"'] }), 'both changed: another control')
  t.notOk(sameControl(pay, { screen: '/cart', names: pay.names }), 'another screen')
  t.notOk(sameControl(pay, { screen: '/checkout', names: ['a#pay', 'a "pay"'] }), 'another kind of element')
  t.notOk(sameControl({ screen: '/x', names: [] }, { screen: '/x', names: [] }), 'without a name, nothing is the same control')
  const many = Array.from({ length: 30 }, (_, i) => `button "n${'x'.repeat(i)}"`)
  const kept = withNames([], many)
  t.equal(kept.length, CONTROL_NAMES_MAX)
  t.equal(kept[0], many[0], 'the first name stays')
  t.equal(kept.at(-1), many.at(-1), 'and the most recent')
  t.same(withNames(['a', 'b'], ['b', 'c']), ['a', 'b', 'c'], 'each once')
})

t.test('a page names a control by its id and its words; words the page shows twice name it only by id or section', async (t) => {
  const model = modelOf(
    el(10, 'button', { id: 'pay', class: 'btn primary' }, [txt(11, 'Pay')]),
    el(12, 'button', { id: 'save-card', class: 'btn' }, [txt(13, 'Save card')]),
    el(20, 'section', { id: 'address' }, [el(21, 'button', { id: 'edit-address' }, [txt(22, 'Edit')])]),
    el(23, 'section', { id: 'payment' }, [el(24, 'button', { id: 'edit-payment' }, [txt(25, 'Edit')])]),
    el(30, 'section', { id: 'delivery' }, [el(31, 'button', { class: 'change' }, [txt(32, 'Change')])]),
    el(33, 'section', { id: 'billing' }, [el(34, 'button', { class: 'change' }, [txt(35, 'Change')])]),
    el(40, 'ul', { id: 'lines' }, [el(41, 'li', {}, [el(42, 'button', { id: 'remove-1' }, [txt(43, 'Remove')])]), el(44, 'li', {}, [el(45, 'button', { id: 'remove-2' }, [txt(46, 'Remove')])])]),
    el(50, 'button', { class: 'icon-close' }, [el(51, 'svg', {})]),
    el(52, 'button', {}),
  )
  t.same(model.target(10)!.names, ['button#pay', 'button "pay"'], 'its id and its words')
  t.same(model.target(12)!.names, ['button#save-card', 'button "save card"'])
  t.same(model.target(21)!.names, ['button#edit-address'], 'two Edit buttons: each by its id alone')
  t.same(model.target(24)!.names, ['button#edit-payment'])
  t.same(model.target(31)!.names, ['button "change" in #delivery'], 'two Change buttons without ids: by their sections')
  t.same(model.target(34)!.names, ['button "change" in #billing'])
  t.same(model.target(42)!.names, ['button "remove" in #lines'], "a list's buttons with numbered ids are one control")
  t.same(model.target(45)!.names, model.target(42)!.names)
  t.same(model.target(50)!.names, ['button ".icon close"'], 'without words, its classes')
  t.same(model.target(52)!.names, [], 'with nothing at all, no name: it never joins another')
  model.mutate({ adds: [], removes: [{ parentId: 3, id: 33 }], texts: [], attributes: [] })
  t.same(model.target(31)!.names, ['button "change"'], 'once the page shows one Change button, its words name it again')
})

t.test('the names follow the page as it changes: text, attributes, added and removed elements', async (t) => {
  const model = modelOf(
    el(20, 'section', { id: 'form' }, [el(10, 'button', { id: 'b1' }, [txt(11, 'Save')]), el(12, 'button', {}, [txt(13, 'Cancel')])]),
    el(21, 'section', { id: 'bar' }, [el(14, 'button', { 'aria-label': 'Close' })]),
  )
  t.same(model.target(10)!.names, ['button "save"'])
  model.mutate({ adds: [], removes: [], texts: [{ id: 13, value: 'Save' }], attributes: [] })
  t.same(model.target(10)!.names, ['button "save" in #form'], 'another button now reads Save too')
  t.same(model.target(14)!.names, ['button "close"'])
  model.mutate({ adds: [], removes: [], texts: [], attributes: [{ id: 14, attributes: { 'aria-label': 'Dismiss' } }] })
  t.same(model.target(14)!.names, ['button "dismiss"'], 'its label changed')
  model.mutate({ adds: [{ parentId: 3, nextId: null, node: el(30, 'button', {}, [txt(31, 'Dismiss')]) }], removes: [], texts: [], attributes: [] })
  t.same(model.target(14)!.names, ['button "dismiss" in #bar'], 'a button added elsewhere reads the same')
  model.mutate({ adds: [], removes: [{ parentId: 3, id: 30 }], texts: [], attributes: [] })
  t.same(model.target(14)!.names, ['button "dismiss"'], 'and is gone again')
  model.mutate({ adds: [{ parentId: 12, nextId: null, node: txt(32, ' changes') }], removes: [], texts: [], attributes: [] })
  t.same(model.target(12)!.names, ['button "save changes"'], "text added inside a button is its words")
  t.same(model.target(10)!.names, ['button "save"'])
})

function shopWithTwoChangeButtons(): RrwebEvent[] {
  const body = [
    el(30, 'section', { id: 'delivery' }, [el(31, 'button', { class: 'change' }, [txt(32, 'Change')])]),
    el(33, 'section', { id: 'billing' }, [el(34, 'button', { class: 'change' }, [txt(35, 'Change')])]),
  ]
  return [
    { type: 4, timestamp: T0, data: { href: 'https://shop.example.com/orders/1001', width: 1024, height: 640 } },
    { type: 2, timestamp: T0 + 5, data: { node: documentOf(body), initialOffset: { left: 0, top: 0 } } },
  ]
}

t.test('two controls that read alike are two findings: a burst gathers clicks of one control only', async (t) => {
  const click = (at: number, id: number): RrwebEvent => ({ type: 3, timestamp: at, data: { source: 2, type: 2, id, x: 1, y: 1 } })
  const later = (at: number): RrwebEvent => ({ type: 3, timestamp: at, data: { source: 1, positions: [{ x: 2, y: 2, id: 3, timeOffset: 0 }] } })
  const findings = detectFriction([...shopWithTwoChangeButtons(), click(T0 + 1000, 31), click(T0 + 3000, 34), click(T0 + 5000, 31), later(T0 + 9000)])
  t.same(findings.map((f) => [f.kind, f.names, f.screen, f.clicks]), [
    ['dead_click', ['button "change" in #delivery'], '/orders/:id', 2],
    ['dead_click', ['button "change" in #billing'], '/orders/:id', 1],
  ])
  t.equal(findings[0]!.target, findings[1]!.target, 'though their descriptions are the same')
})

t.test("a finding's subject is what is specific to it: a click's control on its screen, an error's message", async (t) => {
  t.equal(subjectOf({ kind: 'rage_click', target: 'button#pay "Pay"', screen: '/checkout' }), 'button#pay "Pay" on /checkout')
  t.equal(subjectOf({ kind: 'dead_click', target: 'a "Terms"', screen: '/checkout' }), 'a "Terms" on /checkout')
  t.equal(subjectOf({ kind: 'error_after_click', target: 'button#pay "Pay"', screen: '/checkout', message: 'Payment provider answered 502' }), 'Payment provider answered 502')
  t.equal(subjectOf({ kind: 'error_after_click', target: 'button#pay "Pay"', screen: '/checkout', message: '' }), '', 'an error without a message has nothing else to say')
})
