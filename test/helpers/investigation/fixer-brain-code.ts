/**
 * What the fixer brain writes into the investigate-app fixture: the regression tests and the edits
 * to the code, each derived from the lines its read_file calls returned (so an edit's old_text is
 * text the file really holds), and the shell quoting of a test command.
 */

/** One edit_file call's input. */
export interface Edit {
  path: string
  old_text: string
  new_text: string
}

/** The tests a fixer can write, for a code file with cartTotal, itemCount and cartSummary. */
export type TestKind = 'gift' | 'count'

/** A repository path's folder, and its last part without the extension. */
function parts(path: string): { dir: string; base: string } {
  const slash = path.lastIndexOf('/')
  const file = path.slice(slash + 1)
  return { dir: slash < 0 ? '' : path.slice(0, slash), base: file.replace(/\.[^.]*$/, '') }
}

/** The app's test folder beside its src folder: apps/shop/src/cart.ts → apps/shop/test. */
export function testFolder(codePath: string): string {
  const { dir } = parts(codePath)
  const app = dir.endsWith('/src') ? dir.slice(0, -'/src'.length) : dir === 'src' ? '' : dir
  return app === '' ? 'test' : `${app}/test`
}

/** Where the regression test goes: apps/shop/src/cart.ts → apps/shop/test/cart-gift.test.ts. */
export function regressionTestPath(codePath: string): string {
  return `${testFolder(codePath)}/${parts(codePath).base}-gift.test.ts`
}

/** The existing test file of the code file: apps/shop/src/cart.ts → apps/shop/test/cart.test.ts. */
export function existingTestPath(codePath: string): string {
  return `${testFolder(codePath)}/${parts(codePath).base}.test.ts`
}

/** A file beside the code file: (apps/shop/src/cart.ts, format.ts) → apps/shop/src/format.ts. */
export function sibling(codePath: string, name: string): string {
  const { dir } = parts(codePath)
  return dir === '' ? name : `${dir}/${name}`
}

const CART_HEAD = (base: string, names: string): string[] => [
  `import assert from 'node:assert/strict'`,
  `import { test } from 'node:test'`,
  `import { ${names}, type Cart } from '../src/${base}.js'`,
  '',
  '// As GET /api/cart sends it: the server adds promotional gifts with "gift": true and "price": null.',
  'const cart: Cart = {',
  `  id: 'c-7f3k2',`,
  `  currency: 'USD',`,
  '  items: [',
  `    { sku: 'MUG-01', name: 'Enamel mug', quantity: 2, price: { amount: 1250, currency: 'USD' } },`,
  `    { sku: 'GIFT-TOTE', name: 'Free tote bag', quantity: 1, price: null, gift: true },`,
  '  ],',
  '}',
  '',
]

/** The regression test's text: 'gift' reproduces the bug, 'count' passes with or without the fix. */
export function testSource(kind: TestKind, codePath: string): string {
  const { base } = parts(codePath)
  if (kind === 'count') {
    return [...CART_HEAD(base, 'itemCount'), `test('counts the units of a cart holding a gift line', () => {`, '  assert.equal(itemCount(cart), 3)', '})', ''].join('\n')
  }
  return [
    ...CART_HEAD(base, 'cartSummary, cartTotal'),
    `test('totals a cart holding a gift line, counting the gift as free', () => {`,
    '  assert.equal(cartTotal(cart), 2 * 1250)',
    '})',
    '',
    `test('summarises a cart holding a gift line', () => {`,
    `  assert.equal(cartSummary(cart), '3 items · $25.00')`,
    '})',
    '',
  ].join('\n')
}

/** read_file's "N| text" lines by number (the header and footer lines do not match). */
export function numberedLines(content: string): Map<number, string> {
  const lines = new Map<number, string>()
  for (const raw of content.split('\n')) {
    const match = /^(\d+)\| ?(.*)$/.exec(raw)
    if (match) lines.set(Number(match[1]), match[2]!)
  }
  return lines
}

/** The line the citation points at, or where its quote is when the numbers moved. */
function citedLine(lines: Map<number, string>, line: number, quote: string): string | undefined {
  const at = lines.get(line)
  if (at !== undefined && (quote === '' || at.includes(quote.trim()))) return at
  return [...lines.values()].find((text) => quote.trim() !== '' && text.includes(quote.trim())) ?? at
}

/**
 * The fix of the failing line, from the lines read: the first member chain `a.b.c` on it reads c of
 * a b that may be missing, so it becomes `(a.b?.c ?? 0)`, and the field b is typed `T | null`.
 * broken drops the closing parenthesis: the edit leaves a syntax error.
 */
export function codeEdits(path: string, read: string, line: number, quote: string, broken: boolean): Edit[] {
  const lines = numberedLines(read)
  const failing = citedLine(lines, line, quote)
  const chain = failing === undefined ? undefined : /\b([A-Za-z_$][\w$]*)\.([A-Za-z_$][\w$]*)\.([A-Za-z_$][\w$]*)\b/.exec(failing)
  if (failing === undefined || !chain) return []
  const [whole, object, field, member] = chain as unknown as [string, string, string, string]
  const guarded = broken ? `(${object}.${field}?.${member} ?? 0` : `(${object}.${field}?.${member} ?? 0)`
  const edits: Edit[] = []
  const declaration = [...lines.values()].find((text) => new RegExp(`^\\s*${field.replaceAll('$', '\\$')}: [A-Z][\\w$]*$`).test(text))
  if (declaration !== undefined) {
    const indent = /^\s*/.exec(declaration)![0]
    const type = `${declaration.trim()} | null`
    edits.push({ path, old_text: declaration, new_text: `${indent}/** null on promotional gifts: the server sends them without a ${field}. */\n${indent}${type}` })
  }
  edits.push({ path, old_text: failing, new_text: failing.replace(whole, guarded) })
  return edits
}

/** The edit that breaks another module: formatPrice says "Free" for zero, which its own test forbids. */
export function formatEdit(path: string, read: string): Edit | undefined {
  const line = [...numberedLines(read).values()].find((text) => text.includes('new Intl.NumberFormat('))
  if (line === undefined) return undefined
  const indent = /^\s*/.exec(line)![0]
  return { path, old_text: line, new_text: `${indent}if (cents === 0) return 'Free'\n${line}` }
}

/** A path as one shell word. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}

/** The template's one-file test command for a path ({file} replaced, shell-quoted). */
export function testCommand(template: string | undefined, path: string): string {
  const command = template && template.includes('{file}') ? template : 'node --import tsx --test {file}'
  return command.replaceAll('{file}', shellQuote(path))
}
