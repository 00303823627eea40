/**
 * The conformance suite for embeddings plugins: any plugin of kind embeddings, ours or a
 * stranger's, runs it (see plugins/README.md). It covers what the matcher relies on: one vector
 * per text, in order, of EMBEDDING_DIMENSIONS numbers and unit length, whatever the batch's size
 * (100 texts, past any plugin's request size); an empty list and blank texts handled without a
 * failure; untrusted text (very long, emoji, control characters, right-to-left) embedded like any
 * other; the same vector for a text alone or in a batch; and, for a plugin that calls an
 * endpoint, EmbeddingsUnavailable when it cannot be reached, with the key in no error or log line.
 */
import { randomBytes } from 'node:crypto'
import type { Test } from 'tap'
import { EMBEDDING_DIMENSIONS, EmbeddingsUnavailable, type EmbeddingsPlugin } from '../../shared/plugins/embeddings-types.js'
import { checkPluginModule, instantiatePlugin } from '../../shared/plugins/loader.js'
import type { PluginModule } from '../../shared/plugins/types.js'
import { assertNoSecrets, capturingLogger } from './leaks.js'

/** What the suite needs of a plugin's test. */
export interface EmbeddingsHarness {
  /** Settings for a working plugin; apiKey is for plugins that take one (others ignore it). */
  settings(options: { readonly apiKey: string }): Record<string, unknown>
  /**
   * Whether a text's vector is exactly the same every time (a local model's is). Otherwise the
   * suite allows a provider's float noise: a cosine similarity of at least 0.999.
   */
  readonly deterministic: boolean
  /** Settings pointing at an address on 127.0.0.1 where nothing listens; omitted for a plugin that calls nothing. */
  unreachableSettings?(options: { readonly apiKey: string }): Promise<Record<string, unknown>>
}

/** Friction narratives of the kind the matcher embeds, all different. */
export const SAMPLE_NARRATIVES: readonly string[] = [
  'Rage click: 5 clicks in 1.8 s on button#pay.primary "Pay now" on /checkout; nothing changed on the page.',
  'Dead click on a.coupon-link "Apply coupon" on /cart: nothing changed on the page and no page loaded within 1 s.',
  'Error after click on button#save "Save profile" on /settings/profile: the error "TypeError: Cannot read properties of undefined (reading \'id\')" 0.1 s later.',
  'Dead click on a "Contact" on /help: nothing changed on the page and no page loaded within 1 s.',
  'Rage click: 9 clicks in 3.0 s on button.carousel-next "Next" on /products/42; nothing changed on the page.',
  'Error after click on button.add-to-cart "Add to cart" on /products/7: the error "Request failed with status code 500" 0.4 s later.',
]

/** Runs the embeddings conformance suite against module as subtests of t. */
export async function embeddingsConformance(t: Test, module: unknown, harness: EmbeddingsHarness): Promise<void> {
  const plugin = checkPluginModule('embeddings', (module as PluginModule).manifest?.name ?? 'unknown', module, false)
  const { log, lines } = capturingLogger()
  const apiKey = `sk-conformance-${randomBytes(16).toString('hex')}`
  const create = (settings: Record<string, unknown>): Promise<EmbeddingsPlugin> => instantiatePlugin(plugin, 'embeddings', settings, { log })
  const embeddings = await create(harness.settings({ apiKey }))
  const shown: string[] = []

  /** Asserts that vectors are count unit vectors of EMBEDDING_DIMENSIONS finite numbers. */
  const assertVectors = (t: Test, vectors: unknown, count: number, what: string): void => {
    t.ok(Array.isArray(vectors), `${what}: a list`)
    const list = vectors as number[][]
    t.equal(list.length, count, `${what}: one vector per text`)
    const wrongSize = list.filter((v) => !Array.isArray(v) || v.length !== EMBEDDING_DIMENSIONS).length
    t.equal(wrongSize, 0, `${what}: every vector has ${EMBEDDING_DIMENSIONS} numbers`)
    const notFinite = list.filter((v) => !v.every((n) => typeof n === 'number' && Number.isFinite(n))).length
    t.equal(notFinite, 0, `${what}: every number is finite`)
    const notUnit = list.filter((v) => Math.abs(Math.sqrt(dot(v, v)) - 1) > 1e-6).length
    t.equal(notUnit, 0, `${what}: every vector has unit length`)
  }
  /** Asserts a and b are the same vector (exactly, for a deterministic plugin). */
  const assertSame = (t: Test, a: number[] | undefined, b: number[] | undefined, what: string): void => {
    if (harness.deterministic) t.same(a, b, what)
    else t.ok(a !== undefined && b !== undefined && dot(a, b) >= 0.999, `${what} (cosine ≥ 0.999)`)
  }

  await t.test('names its model as provider:model', async (t) => {
    t.match(embeddings.model, /^[a-z0-9-]+:\S+$/)
  })

  await t.test('one text: one unit vector of EMBEDDING_DIMENSIONS numbers', async (t) => {
    assertVectors(t, await embeddings.embed([SAMPLE_NARRATIVES[0]!]), 1, 'one text')
  })

  await t.test('an empty list answers an empty list', async (t) => {
    t.same(await embeddings.embed([]), [])
  })

  await t.test('keeps the order of a batch: each vector is the one its text gets alone', async (t) => {
    const batch = await embeddings.embed(SAMPLE_NARRATIVES)
    assertVectors(t, batch, SAMPLE_NARRATIVES.length, 'the batch')
    for (const [index, text] of SAMPLE_NARRATIVES.entries()) {
      const [alone] = await embeddings.embed([text])
      assertSame(t, batch[index], alone, `text ${index} alone and in the batch`)
    }
    const reversed = await embeddings.embed([...SAMPLE_NARRATIVES].reverse())
    assertSame(t, reversed[0], batch.at(-1), 'the last text first in a reversed batch')
    // Different texts must get different vectors, or matching would join everything.
    const identical = batch.flatMap((a, i) => batch.slice(i + 1).filter((b) => dot(a, b) > 0.999)).length
    t.equal(identical, 0, 'different narratives get different vectors')
  })

  await t.test('blank texts get unit vectors too, and do not disturb their neighbours', async (t) => {
    const vectors = await embeddings.embed(['', SAMPLE_NARRATIVES[1]!, '  \n\t '])
    assertVectors(t, vectors, 3, 'blank texts')
    const [alone] = await embeddings.embed([SAMPLE_NARRATIVES[1]!])
    assertSame(t, vectors[1], alone, 'the text between two blank ones')
  })

  await t.test('a batch of 100 texts: 100 unit vectors, each its own text\'s', async (t) => {
    const texts = Array.from({ length: 100 }, (_, i) => `${SAMPLE_NARRATIVES[i % SAMPLE_NARRATIVES.length]} (session ${i}, user u-${(i * 7919) % 1000}x)`)
    const vectors = await embeddings.embed(texts)
    assertVectors(t, vectors, 100, 'a batch of 100')
    for (const index of [0, 31, 32, 63, 64, 99]) {
      const [alone] = await embeddings.embed([texts[index]!])
      assertSame(t, vectors[index], alone, `text ${index} of 100 alone and in the batch`)
    }
  })

  await t.test('untrusted text: very long, emoji, control characters, right-to-left', async (t) => {
    const texts = ['x'.repeat(20_000) + ' clicked', 'Rage click 😡😡 on “Zahlen” ﬁnal\u0000\u0007\u202e/kasse', 'النقر على زر الدفع لم يفعل شيئا', '\ud800 lone surrogate']
    assertVectors(t, await embeddings.embed(texts), texts.length, 'untrusted texts')
  })

  if (harness.deterministic) {
    await t.test('deterministic: the same text gets the same numbers in another call and another instance', async (t) => {
      const other = await create(harness.settings({ apiKey }))
      const [first] = await embeddings.embed([SAMPLE_NARRATIVES[2]!])
      const [second] = await embeddings.embed([SAMPLE_NARRATIVES[2]!])
      const [third] = await other.embed([SAMPLE_NARRATIVES[2]!])
      t.same(second, first)
      t.same(third, first)
    })
  }

  if (harness.unreachableSettings !== undefined) {
    const settings = await harness.unreachableSettings({ apiKey })
    await t.test('an endpoint nobody answers at is EmbeddingsUnavailable', async (t) => {
      const unreachable = await create(settings)
      const error = await unreachable.embed([SAMPLE_NARRATIVES[0]!]).then(
        () => undefined,
        (failure: Error) => failure,
      )
      t.type(error, EmbeddingsUnavailable)
      shown.push(String(error?.message))
    })
  }

  await t.test('the API key is in no error message and no log line', async (t) => {
    assertNoSecrets(t, shown.join('\n'), [apiKey], 'error messages')
    assertNoSecrets(t, lines.join(''), [apiKey], 'log lines')
  })
}

function dot(a: readonly number[], b: readonly number[]): number {
  let sum = 0
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!
  return sum
}
