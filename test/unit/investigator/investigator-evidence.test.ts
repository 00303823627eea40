import t, { type Test } from 'tap'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parseAnswer, type Answer } from '../../../services/investigator/analysis/answer.js'
import { checkEvidence } from '../../../services/investigator/analysis/evidence.js'
import { indexRepository } from '../../../services/investigator/analysis/repo-paths.js'
import { createRepoTools, type RepoTools } from '../../../services/investigator/analysis/repo-tools.js'

// Line 12 holds the throw; the rest is padding so a ±5 window has room both ways.
const CART = [
  ...Array.from({ length: 9 }, (_, i) => `// header ${i + 1}`),
  'export function total(cart) {',
  '  const items = cart.items',
  '  return items.reduce((sum,   item) => sum + item.price, 0)',
  '}',
  ...Array.from({ length: 40 }, (_, i) => `export const filler${i + 14} = ${i + 14}`),
].join('\n')

async function setUp(t: Test, read: Array<{ path: string; start_line?: number; end_line?: number }> = [{ path: 'src/cart.ts' }]): Promise<{ dir: string; tools: RepoTools }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-evidence-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  for (const [file, content] of [['src/cart.ts', CART], ['src/other.ts', 'export const unrelatedButLong = true\n']]) {
    await mkdir(dirname(join(dir, file!)), { recursive: true })
    await writeFile(join(dir, file!), content!)
  }
  const tools = createRepoTools(dir, await indexRepository(dir))
  for (const input of read) t.equal((await tools.run('read_file', input)).isError, false)
  return { dir, tools }
}

function answer(citations: Array<{ path: string; line: number; quote: string }>, outcome: 'in_code' | 'outside_code' = 'in_code'): Answer {
  const parsed = parseAnswer({
    outcome,
    confidence: 0.8,
    summary: 'total() reads cart.items, which is undefined for a guest cart.',
    chain: ['The user opens the cart', 'total() reduces cart.items'],
    ...(outcome === 'in_code' ? { fix: 'Default cart.items to an empty array in total().' } : { cause: { kind: 'backend', name: 'cart API', evidence: 'The API returned a cart without items.' } }),
    citations,
  })
  if (!parsed.ok) throw new Error(parsed.problems.join('; '))
  return parsed.answer
}

const THROW = 'return items.reduce((sum, item) => sum + item.price, 0)'

t.test('verifies a quote at the cited line and records where it is', async (t) => {
  const { dir, tools } = await setUp(t)
  const result = await checkEvidence(answer([{ path: 'src/cart.ts', line: 12, quote: THROW }]), { dir, readFiles: tools.readFiles })
  t.same(result, { ok: true, citations: [{ path: 'src/cart.ts', lineStart: 12, lineEnd: 12, quote: THROW }] })
})

t.test('accepts a quote off by 3 lines and records the actual line', async (t) => {
  const { dir, tools } = await setUp(t)
  const result = await checkEvidence(answer([{ path: 'src/cart.ts', line: 15, quote: THROW }]), { dir, readFiles: tools.readFiles })
  t.match(result, { ok: true, citations: [{ lineStart: 12, lineEnd: 12 }] })
})

t.test('rejects a quote more than 5 lines from where it is', async (t) => {
  const { dir, tools } = await setUp(t)
  const result = await checkEvidence(answer([{ path: 'src/cart.ts', line: 18, quote: THROW }]), { dir, readFiles: tools.readFiles })
  t.same(result, { ok: false, problems: ['src/cart.ts:18: quote not found within ±5 lines'] })
})

t.test('one fabricated quote rejects the whole answer', async (t) => {
  const { dir, tools } = await setUp(t)
  const result = await checkEvidence(
    answer([
      { path: 'src/cart.ts', line: 12, quote: THROW },
      { path: 'src/cart.ts', line: 11, quote: 'if (!cart.items) throw new Error("no items")' },
    ]),
    { dir, readFiles: tools.readFiles },
  )
  t.same(result, { ok: false, problems: ['src/cart.ts:11: quote not found within ±5 lines'] })
})

t.test('rejects a quote from a file not read in this run, even when it is true', async (t) => {
  const { dir, tools } = await setUp(t)
  const result = await checkEvidence(answer([{ path: 'src/other.ts', line: 1, quote: 'export const unrelatedButLong = true' }]), { dir, readFiles: tools.readFiles })
  t.same(result, { ok: false, problems: ['src/other.ts: not read in this run'] })
})

t.test('rejects a quote from lines of the file that were not read', async (t) => {
  const { dir, tools } = await setUp(t, [{ path: 'src/cart.ts', start_line: 30, end_line: 40 }])
  const result = await checkEvidence(answer([{ path: 'src/cart.ts', line: 12, quote: THROW }]), { dir, readFiles: tools.readFiles })
  t.same(result, { ok: false, problems: ['src/cart.ts:12: quoted lines were not read in this run'] })
})

t.test('matches several lines with whitespace folded, line numbers copied from read_file dropped', async (t) => {
  const { dir, tools } = await setUp(t)
  const plain = await checkEvidence(answer([{ path: 'src/cart.ts', line: 10, quote: 'function total(cart) {\n    const   items = cart.items\n\treturn items.reduce(' }]), { dir, readFiles: tools.readFiles })
  t.match(plain, { ok: true, citations: [{ lineStart: 10, lineEnd: 12 }] })
  const numbered = await checkEvidence(answer([{ path: './src/cart.ts', line: 11, quote: '11|   const items = cart.items\n12|   return items.reduce((sum,   item) => sum + item.price, 0)' }]), { dir, readFiles: tools.readFiles })
  t.match(numbered, { ok: true, citations: [{ path: 'src/cart.ts', lineStart: 11, lineEnd: 12 }] })
  const gap = await checkEvidence(answer([{ path: 'src/cart.ts', line: 10, quote: 'export function total(cart) {\n  return items.reduce(' }]), { dir, readFiles: tools.readFiles })
  t.equal(gap.ok, false, 'lines must be consecutive')
})

t.test('a quote too short to prove anything is not counted', async (t) => {
  const { dir, tools } = await setUp(t)
  const inCode = await checkEvidence(answer([{ path: 'src/cart.ts', line: 13, quote: '}' }]), { dir, readFiles: tools.readFiles })
  t.match(inCode, { ok: false, problems: [/none long enough/] })
  const outside = await checkEvidence(answer([{ path: 'src/cart.ts', line: 13, quote: '}' }], 'outside_code'), { dir, readFiles: tools.readFiles })
  t.same(outside, { ok: true, citations: [] })
  const escaped = await checkEvidence(answer([{ path: '../cart.ts', line: 1, quote: THROW }]), { dir, readFiles: tools.readFiles })
  t.match(escaped, { ok: false, problems: [/'\.\.' is not allowed/] })
})

t.test('parseAnswer trims strings and enforces what each outcome needs', async (t) => {
  const base = { confidence: 0.7, summary: '  The cart total reads items of an undefined cart.  ', chain: [' click checkout '], citations: [{ path: ' src/cart.ts ', line: 12, quote: ` ${THROW} ` }] }
  const ok = parseAnswer({ ...base, outcome: 'in_code', fix: ' Guard cart.items. ' })
  t.match(ok, { ok: true, answer: { outcome: 'in_code', summary: 'The cart total reads items of an undefined cart.', chain: ['click checkout'], fix: 'Guard cart.items.', citations: [{ path: 'src/cart.ts', quote: THROW }] } })
  t.match(parseAnswer({ ...base, outcome: 'in_code' }), { ok: false, problems: ['fix: required for in_code'] })
  t.match(parseAnswer({ ...base, outcome: 'in_code', fix: 'Guard it.', citations: [] }), { ok: false, problems: ['citations: in_code needs at least one'] })
  t.match(parseAnswer({ ...base, outcome: 'outside_code' }), { ok: false, problems: ['cause: required for outside_code'] })
  t.match(parseAnswer({ ...base, outcome: 'outside_code', cause: { kind: 'browser_extension', name: 'Grammarly', evidence: 'N/A' } }), { ok: false, problems: ['cause.evidence: empty or filler'] })
  t.match(parseAnswer({ ...base, outcome: 'undetermined', summary: 'N/A' }), { ok: false, problems: ['summary: empty or filler'] })
  t.match(parseAnswer({ ...base, outcome: 'undetermined', summary: '   ' }), { ok: false, problems: ['summary: empty or filler'] })
  t.match(parseAnswer({ ...base, outcome: 'undetermined', citations: undefined, chain: undefined }), { ok: true, answer: { chain: [], citations: [] } })
  t.match(parseAnswer({ ...base, outcome: 'maybe', confidence: 2, extra: 1 }), { ok: false, problems: ['answer: unknown property extra', 'outcome: must be one of in_code, outside_code, undetermined', 'confidence: must be <= 1'] })
  t.match(parseAnswer({ ...base, outcome: 'in_code', fix: 'Guard it.', citations: [{ path: 'src/cart.ts', line: 12, quote: '  ' }] }), { ok: false, problems: ['citations.0.quote: empty'] })
  t.match(parseAnswer({ ...base, outcome: 'undetermined', chain: Array(13).fill('step') }), { ok: false, problems: [/chain: must NOT have more than 12 items/] })
  t.match(parseAnswer('not an object'), { ok: false })
})
