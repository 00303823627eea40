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
  const payNow = 'Rage click: the user clicked "Pay now" (button#pay-now) 6 times within 2 s on /checkout; nothing changed.'
  // The same problem seen by another user: other counts, other ids, other case and punctuation.
  t.ok(similarity(payNow, 'Rage click: the user clicked "Pay Now" (button#pay-now) 11 times within 4 s on /checkout. Nothing changed!') > 0.95, 'the same rage click, other counts and case')
  t.ok(similarity(payNow, 'Rage click: the user clicked "Pay now" (button#pay-now) 6 times within 2 s on /checkout?step=2; nothing changed.') > 0.85, 'the same rage click, a query string more')
  const saveProfile = "Error after click: clicking \"Save profile\" (button#save) on /settings/profile was followed within 1 s by TypeError: Cannot read properties of undefined (reading 'id')."
  t.ok(similarity(saveProfile, "Error after click: clicking \"Save profile\" (button#save) on /settings/profile/7731 was followed within 3 s by TypeError: Cannot read properties of undefined (reading 'id').") > 0.9, 'the same error after click on another profile')
  // The same kind of friction elsewhere shares the narrative's wording, so it is nearer than unrelated text, but well short of a match.
  const elsewhere = similarity(payNow, 'Rage click: the user clicked "Add to cart" (button.add-to-cart) 5 times within 2 s on /products/123; nothing changed.')
  t.ok(elsewhere < 0.75, `a rage click on another button and page is not near (${elsewhere.toFixed(2)})`)
  t.ok(similarity(payNow, 'Dead click: the user clicked "Apply coupon" (a.coupon-link) on /cart and nothing happened for 3 s.') < 0.5, 'a dead click elsewhere is far')
  t.ok(similarity(saveProfile, 'Form abandoned: the user filled 3 of 5 fields of "Shipping address" (form#shipping) on /checkout/shipping and left without submitting.') < 0.2, 'another kind on another page is farther still')
})

t.test('normalises before hashing: case, compatibility forms, punctuation and digit runs', async (t) => {
  t.same(normalise('Pay NOW — ﬁnal (button#pay-2) on /orders/12345'), ['pay', 'now', 'final', 'button', 'pay', '0', 'on', 'orders', '0'])
  t.same(embedText('ＰＡＹ　ｎｏｗ 42'), embedText('pay now 7'), 'full-width forms and other numbers give the same vector')
  t.same(embedText('...!!!'), embedText(''), 'text without a letter or digit is blank')
})

t.test('the numbers are pinned: changing the method needs a new model name', async (t) => {
  // Stored vectors of local:hashed-ngrams-v1 stay comparable with new ones only while this holds.
  const vector = embedText('Rage click: the user clicked "Pay now" (button#pay-now) 6 times within 2 s on /checkout; nothing changed.')
  const digest = createHash('sha256').update(vector.map((value) => value.toFixed(12)).join(',')).digest('hex').slice(0, 16)
  t.equal(digest, PINNED_DIGEST)
})

const PINNED_DIGEST = '08436856ed11b1c8'
