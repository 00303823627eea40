// embeddings-local through the loader: the embeddings conformance suite, and what matching needs
// of its vectors: near-identical narratives close, narratives about other things far.
import { createHash } from 'node:crypto'
import t from 'tap'
import { embeddingsConformance } from '../../plugins/conformance/embeddings.js'
import { capturingLogger } from '../../plugins/conformance/leaks.js'
import { embedText, normalise } from '../../plugins/embeddings-local/hashed-ngrams.js'
import { importPluginModule, loadPlugin } from '../../shared/plugins/loader.js'

const cosine = (a: readonly number[], b: readonly number[]): number => a.reduce((sum, value, i) => sum + value * b[i]!, 0)
const similarity = (a: string, b: string): number => cosine(embedText(a), embedText(b))

t.test('embeddings-local passes the embeddings conformance suite', async (t) => {
  await embeddingsConformance(t, await importPluginModule('embeddings', 'embeddings-local'), { settings: () => ({}), deterministic: true })
})

t.test('names its model, says it is CPU-bound, and takes no settings', async (t) => {
  const plugin = await loadPlugin('embeddings', 'embeddings-local', {}, { log: capturingLogger().log })
  t.equal(plugin.model, 'local:hashed-ngrams-v1')
  t.equal(plugin.cpuBound, true, 'the matcher runs it in its worker threads')
  await t.rejects(loadPlugin('embeddings', 'embeddings-local', { apiKey: 'k' }, { log: capturingLogger().log }), { name: 'PluginError', message: /has bad settings/ })
})

t.test('near-identical narratives are close; other problems are far', async (t) => {
  const payNow = 'Rage click: 5 clicks in 1.8 s on button#pay.primary "Pay now" on /checkout; nothing changed on the page.'
  // The same problem seen by another user: other counts and timings, other case.
  t.ok(similarity(payNow, 'Rage click: 12 clicks in 3.1 s on button#pay.primary "Pay Now" on /checkout; nothing changed on the page.') > 0.95, 'the same rage click, other counts and case')
  t.ok(similarity(payNow, 'Rage click: 5 clicks in 1.8 s on button#pay.primary "Pay now" on /checkout?step=2; nothing changed on the page.') > 0.85, 'the same rage click, a query string more')
  const saveProfile = 'Error after click on button#save "Save profile" on /settings/profile: the error "TypeError: Cannot read properties of undefined (reading \'id\')" 0.1 s later.'
  t.ok(similarity(saveProfile, 'Error after click on button#save "Save profile" on /settings/profile/7731: the error "TypeError: Cannot read properties of undefined (reading \'id\')" 1.4 s later.') > 0.9, 'the same error after click on another profile')
  // The same kind of friction elsewhere shares the narrative's wording, so it is nearer than unrelated text, but well short of a match.
  const elsewhere = similarity(payNow, 'Rage click: 4 clicks in 1.2 s on button.add-to-cart.btn "Add to cart" on /products/123; nothing changed on the page.')
  t.ok(elsewhere < 0.75, `a rage click on another button and page is not near (${elsewhere.toFixed(2)})`)
  const otherError = similarity(saveProfile, 'Error after click on button#save "Save profile" on /settings/profile: the error "Request failed with status code 500" 0.3 s later.')
  t.ok(otherError < 0.85, `another error after the same click is farther than the same error (${otherError.toFixed(2)})`)
  t.ok(similarity(payNow, 'Dead click on a.coupon-link "Apply coupon" on /cart: nothing changed on the page and no page loaded within 1 s.') < 0.5, 'a dead click elsewhere is far')
  t.ok(similarity(saveProfile, 'Dead click on a.coupon-link "Apply coupon" on /cart: nothing changed on the page and no page loaded within 1 s.') < 0.3, 'another kind on another page and target is far')
})

t.test('normalises before hashing: case, compatibility forms, punctuation and digit runs', async (t) => {
  t.same(normalise('Pay NOW — ﬁnal (button#pay-2) on /orders/12345'), ['pay', 'now', 'final', 'button', 'pay', '0', 'on', 'orders', '0'])
  t.same(embedText('ＰＡＹ　ｎｏｗ 42'), embedText('pay now 7'), 'full-width forms and other numbers give the same vector')
  t.same(embedText('...!!!'), embedText(''), 'text without a letter or digit is blank')
})

t.test('the numbers are pinned: changing the method needs a new model name', async (t) => {
  // Stored vectors of local:hashed-ngrams-v1 stay comparable with new ones only while this holds.
  const vector = embedText('Rage click: 5 clicks in 1.8 s on button#pay.primary "Pay now" on /checkout; nothing changed on the page.')
  const digest = createHash('sha256').update(vector.map((value) => value.toFixed(12)).join(',')).digest('hex').slice(0, 16)
  t.equal(digest, PINNED_DIGEST)
})

const PINNED_DIGEST = '081e77deae6ada30'
