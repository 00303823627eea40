import { TraceMap } from '@jridgewell/trace-mapping'
import t from 'tap'
import { MAX_STATEMENT_LINES, statementAt } from '../../../services/grouper/symbolication/source-statement.js'

/** A map that carries text as the source of file (no mappings: statementAt reads only the source). */
function mapOf(text: string, file = 'src/checkout.ts'): TraceMap {
  return new TraceMap({ version: 3, sources: [file], sourcesContent: [text], names: [], mappings: '' })
}

/** The statement at the first occurrence of marker in text (line 1-based, column 0-based). */
function at(text: string, marker: string, file = 'src/checkout.ts', nth = 0): ReturnType<typeof statementAt> {
  let index = -1
  for (let i = 0; i <= nth; i++) index = text.indexOf(marker, index + 1)
  if (index < 0) throw new Error(`no ${marker} in the text`)
  const before = text.slice(0, index).split('\n')
  return statementAt(mapOf(text, file), file, before.length, before.at(-1)!.length)
}

const LOCAL_TOTAL = `export function localTotal(totalCents: number, locale: string, currency: string): string {
  const format = new Intl.NumberFormat(locale, {
    style: 'currency', // what the shop shows
    currency,
    currencyDisplay: 'narrowSymbol',
  })
  return format.format(totalCents / 100)
}
`

t.test('every line of a multi-line statement gives the one statement, comments out and whitespace folded', async (t) => {
  const statement = "const format = new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay: 'narrowSymbol', })"
  for (const marker of ['new Intl', 'NumberFormat(', "'currency'", 'currencyDisplay', '})']) {
    t.same(at(LOCAL_TOTAL, marker), { text: statement, line: 2, earlier: 0 }, `at ${marker}`)
  }
})

t.test('a read of a const read once is its inlined initializer: the const statement, as a minifier inlined it', async (t) => {
  // V8 and SpiderMonkey point at the inlined `new`, which the map puts on the read of format.
  t.equal(at(LOCAL_TOTAL, 'format.format')?.text, at(LOCAL_TOTAL, 'NumberFormat(')?.text)
  t.equal(at(LOCAL_TOTAL, '.format(')?.text, 'return format.format(totalCents / 100)', 'the call on it is its own statement')
  const readTwice = LOCAL_TOTAL.replace('  return format', '  console.info(format.resolvedOptions())\n  return format')
  t.equal(at(readTwice, 'format.format')?.text, 'return format.format(totalCents / 100)', 'a const read twice is not inlined')
  const asLet = LOCAL_TOTAL.replace('const format', 'let format')
  t.equal(at(asLet, 'format.format')?.text, 'return format.format(totalCents / 100)', 'a let is not inlined')
  const inClosure = LOCAL_TOTAL.replace('  return format.format(totalCents / 100)', '  return () => format.format(totalCents / 100)')
  t.equal(at(inClosure, 'format.format')?.text, 'return () => format.format(totalCents / 100)', 'nothing is inlined into a function that runs later')
  const shadowed = `const format = makeFormat()\nfunction show(format: Formatter) {\n  return format.format(1)\n}\n`
  t.equal(at(shadowed, 'format.format')?.text, 'return format.format(1)', "a parameter's name is not the outer const")
  const chained = `function f() {\n  const a = load()\n  const b = a.items\n  return b.length\n}\n`
  t.equal(at(chained, 'b.length')?.text, 'const a = load()', 'a const inlined into an inlined const is followed to the first')
})

t.test('a compound statement is keyed by its own part, without the statements it holds', async (t) => {
  const text = `function f(user) {\n  if (user.profile.name.length > 3) {\n    go(user)\n  } else {\n    stay()\n  }\n  for (const item of user.cart.items) count(item)\n}\n`
  t.equal(at(text, 'user.profile')?.text, 'if (user.profile.name.length > 3)')
  t.equal(at(text, 'go(')?.text, 'go(user)')
  t.equal(at(text, 'user.cart')?.text, 'for (const item of user.cart.items)')
  t.equal(at(text, 'count(')?.text, 'count(item)')
})

t.test('identical statements are told apart by how many read the same before them', async (t) => {
  const text = `function a() {\n  throw new Error('no')\n}\nfunction b() {\n  throw   new Error('no')\n}\n`
  t.equal(at(text, 'throw')?.earlier, 0)
  t.equal(at(text, 'throw', 'src/checkout.ts', 1)?.earlier, 1)
  t.equal(at(text, 'throw', 'src/checkout.ts', 1)?.text, "throw new Error('no')")
})

t.test(`a statement longer than ${MAX_STATEMENT_LINES} lines gives none: its line keys the site`, async (t) => {
  const long = `const config = {\n${Array.from({ length: MAX_STATEMENT_LINES }, (_, i) => `  key${i}: read(${i}),`).join('\n')}\n}\n`
  t.equal(at(long, 'read(3)'), undefined)
  const fits = `const config = {\n${Array.from({ length: MAX_STATEMENT_LINES - 2 }, (_, i) => `  key${i}: read(${i}),`).join('\n')}\n}\n`
  t.equal(at(fits, 'read(3)')?.line, 1)
})

t.test('TypeScript, JSX and the script of a single-file component parse by the file name', async (t) => {
  t.equal(at('const n = <number>(value as unknown)\nexport default n\n', 'value', 'src/a.ts')?.text, 'const n = <number>(value as unknown)')
  t.equal(at('export const Row = ({ item }: Props) => <li>{item.price.toFixed(2)}</li>\n', 'item.price', 'src/row.tsx')?.text, 'const Row = ({ item }: Props) => <li>{item.price.toFixed(2)}</li>')
  t.equal(at('export const Row = ({ item }) => <li>{item.price.toFixed(2)}</li>\n', 'item.price', 'src/row.jsx')?.text, 'const Row = ({ item }) => <li>{item.price.toFixed(2)}</li>')
  const sfc = `<template>\n  <p>{{ total }}</p>\n</template>\n<script setup lang="ts">\nconst total: number = cart.value.items\n  .reduce((sum, item) => sum + item.price, 0)\n</script>\n`
  t.same(at(sfc, 'item.price', 'src/Cart.vue'), { text: 'const total: number = cart.value.items .reduce((sum, item) => sum + item.price, 0)', line: 5, earlier: 0 })
  t.equal(at(sfc, 'total }}', 'src/Cart.vue'), undefined, 'a template position has no statement')
})

t.test('odd input gives no statement and never throws', async (t) => {
  t.equal(at('const x = {\n  a: (\n', 'a:'), undefined, 'source that does not parse')
  t.equal(statementAt(mapOf('f()\n'), 'src/checkout.ts', 40, 0), undefined, 'a line past the end')
  t.equal(statementAt(mapOf('f()\n'), 'src/checkout.ts', 1, -5), undefined, 'a negative column')
  t.equal(statementAt(mapOf('f()\n'), 'src/other.ts', 1, 0), undefined, 'a source the map does not carry')
  t.equal(statementAt(new TraceMap({ version: 3, sources: ['src/a.ts'], names: [], mappings: '' }), 'src/a.ts', 1, 0), undefined, 'a map without sourcesContent')
  const deep = `x = ${'['.repeat(50_000)}${']'.repeat(50_000)}\n`
  t.doesNotThrow(() => statementAt(mapOf(deep), 'src/checkout.ts', 1, 30_000), 'nesting deeper than the stack')
  const garbage = Array.from({ length: 2000 }, (_, i) => String.fromCharCode((i * 7919) % 0xd7ff)).join('')
  for (let column = 0; column < garbage.length; column += 97) t.doesNotThrow(() => statementAt(mapOf(garbage), 'src/checkout.ts', 1, column))
})
