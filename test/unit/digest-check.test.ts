import t from 'tap'
import { checkWritten, sectionsOf } from '../../services/digester/text/check.js'
import { composeMessage, connectedMessage, mechanicalLine, type ItemFacts } from '../../services/digester/text/compose.js'
import { mechanicalText } from '../../services/digester/text/write.js'

const base = 'https://svc.example.com/projects/p1'
const cart: ItemFacts = {
  position: 1,
  subject: 'issue',
  title: "TypeError: Cannot read properties of undefined (reading 'id')",
  outcome: 'fix_draft',
  users: 14,
  prUrl: 'https://github.com/acme/shop/pull/42',
  links: [{ label: 'Issue', url: `${base}/issues/i1` }, { label: 'Pull request', url: 'https://github.com/acme/shop/pull/42' }],
}
const pay: ItemFacts = {
  position: 2,
  subject: 'known_problem',
  title: 'Rage click: 5 clicks on button#pay on /checkout',
  outcome: 'outside_code',
  users: 3,
  prUrl: '',
  links: [{ label: 'Known problem', url: `${base}/known-problems/k1` }],
}
const items = [cart, pay]

t.test('a written text that says each item once with its own numbers and links passes item by item', async (t) => {
  const text = `[1] Reading an id from an undefined cart broke checkout for 14 users; a draft fix is open: https://github.com/acme/shop/pull/42.\n[2] People clicked Pay 5 times on the checkout page without effect; 3 users met it and the cause lies outside your code. ${base}/known-problems/k1`
  const verdicts = checkWritten(text, items)
  t.same(verdicts.map((v) => v.ok), [true, true])
})

t.test('an item whose paragraph claims a wrong number falls back alone; the other stays written', async (t) => {
  const text = `[1] Checkout broke for 15 users; fix: https://github.com/acme/shop/pull/42\n[2] Pay button ignored for 3 users.`
  const [first, second] = checkWritten(text, items)
  t.match(first, { ok: false, reason: /^number: it claims 15/ })
  t.match(second, { ok: true })
})

t.test('missing, repeated, foreign links, an unlinked pull request and internal words each fail the item', async (t) => {
  t.match(checkWritten('[2] Pay ignored for 3 users.', items)[0], { ok: false, reason: /^missing/ })
  t.match(checkWritten('[1] a https://github.com/acme/shop/pull/42\n[1] b https://github.com/acme/shop/pull/42', items)[0], { ok: false, reason: /^repeated/ })
  t.match(checkWritten('[1] Fixed for 14 users: https://github.com/acme/shop/pull/42 and see https://evil.example.com/x', items)[0], { ok: false, reason: /^link: it links to an address/ })
  t.match(checkWritten('[1] Fixed for 14 users.', items)[0], { ok: false, reason: /^link: its pull request/ })
  t.match(checkWritten('[1] State pr_draft for 14 users https://github.com/acme/shop/pull/42', items)[0], { ok: false, reason: /^vocabulary/ })
  t.match(checkWritten('[2] It is an insight for 3 users.', items)[1], { ok: false, reason: /^vocabulary/ })
  t.match(checkWritten('[2] Stopped with lease_lost.', items)[1], { ok: false, reason: /^vocabulary/ })
})

t.test("numbers and identifiers quoted from an item's own title are its facts", async (t) => {
  const item: ItemFacts = { ...pay, title: 'ReferenceError: cart_total is not defined at line 12' }
  t.match(checkWritten('[2] "cart_total is not defined" at line 12 hit 3 users.', [cart, item])[1], { ok: true })
})

t.test('markers may carry a bullet, and text before the first marker belongs to no item', async (t) => {
  const sections = sectionsOf('Good morning!\n- [1] one\n• [2] two\n  more of two')
  t.same([...sections.entries()], [[1, ['one']], [2, ['two more of two']]])
})

t.test('every mechanical line passes the check, so a fallback day never fails its own fallback', async (t) => {
  const facts = items.map((item) => ({ ...item, mechanical: mechanicalLine(item) }))
  t.same(checkWritten(mechanicalText(facts), items).map((v) => v.ok), [true, true])
  t.equal(mechanicalLine(cart), `\`${cart.title}\`: a fix is proposed in a draft pull request; 14 users affected. Pull request: https://github.com/acme/shop/pull/42 Details: ${base}/issues/i1`)
  t.match(mechanicalLine({ ...pay, users: 1 }), /^Known problem `Rage click[^`]*`: the cause is outside your code; 1 user affected\. Details: /)
})

t.test('the composed message escapes chat markup in names and lines', async (t) => {
  const message = composeMessage('Shop <!channel>', '2026-03-29', ['a <https://evil|click> & b'])
  t.equal(message, 'Daily digest for Shop &lt;!channel&gt;, 2026-03-29: 1 update since the last digest.\n\n• a &lt;https://evil|click&gt; &amp; b')
})

t.test('a title is quoted as inline code, so an address or markup in event text is not a link in the chat', async (t) => {
  const line = mechanicalLine({ ...pay, subject: 'issue', title: 'Error: see https://evil.example.com `now`' })
  t.match(line, /^`Error: see https:\/\/evil\.example\.com 'now'`: the cause is outside your code/)
})

t.test("a title repeated in a written paragraph goes out as inline code, as in the mechanical line, so its markup stays text", async (t) => {
  const item: ItemFacts = { ...pay, title: 'Error: *bold* _x_ ~y~ <!channel>' }
  const [, verdict] = checkWritten(`[2] The error "Error: *bold* _x_ ~y~ <!channel>" stopped 3 users.`, [cart, item])
  t.same(verdict, { ok: true, text: 'The error "`Error: *bold* _x_ ~y~ <!channel>`" stopped 3 users.' })
  const message = composeMessage('Shop', '2026-03-29', [(verdict as { text: string }).text])
  t.match(message, /\n• The error "`Error: \*bold\* _x_ ~y~ &lt;!channel&gt;`" stopped 3 users\.$/, 'the mention escaped inside the code')
})

t.test('a written paragraph with chat markup outside inline code falls back to its mechanical line', async (t) => {
  const item: ItemFacts = { ...pay, title: 'Error: *bold* _x_ ~y~ in a`*b*`c' }
  const verdict = (text: string) => checkWritten(`[2] ${text}`, [cart, item])[1]
  t.match(verdict('The *bold* error stopped 3 users.'), { ok: false, reason: /^markup: .*\(an asterisk\)/ }, 'part of the title, bold')
  t.match(verdict('An _x_ error stopped 3 users.'), { ok: false, reason: /\(an underscore at the edge of a word\)/ }, 'italic')
  t.match(verdict('A ~y~ error stopped 3 users.'), { ok: false, reason: /\(a tilde\)/ }, 'struck through')
  t.match(verdict('It failed in `a`*b*`c` for 3 users.'), { ok: false, reason: /\(an asterisk\)/ }, 'a backtick of the title closes the code early')
  t.match(verdict('It failed in `a for 3 users.'), { ok: false, reason: /\(an unpaired backtick\)/ })
  t.match(verdict('It failed ``` for 3 users.'), { ok: false, reason: /\(an unpaired backtick\)/ })
  t.match(verdict('It failed `` for 3 users.'), { ok: false, reason: /\(an empty code span\)/ })
  t.match(verdict('It failed in `a*b*c` for 3 users.'), { ok: true }, 'markup inside inline code is no formatting')
  t.match(mechanicalLine({ ...item, title: 'Error: *a*\n*b*' }), /^Known problem `Error: \*a\* \*b\*`: /, 'a line break in a title would end the code early: it becomes a space')
})

t.test('the test message that connects a chat names the time zone and escapes the project name', async (t) => {
  t.equal(connectedMessage('Shop <!here>', 'Europe/Berlin'), "svc is connected to Shop &lt;!here&gt;: its daily digest will be posted here around 09:00 Europe/Berlin, the project's time zone (change it in the project's settings).")
})
