import t from 'tap'
import { groupEvent, type SourceStatement, type StackFrame } from '../../../services/grouper/grouping/index.js'
import { loadCorpus } from '../../fixtures/grouping-corpus/corpus.js'
import { groupCorpus } from '../../../bench/grouping/corpus.js'

const BUNDLE = { file: 'https://shop.example/assets/index-1a2b3c4d.js', line: 1 }

/** A minified frame a map placed at line of src/checkout.ts, whose source line reads text. */
function placed(column: number, line: number, text: string): StackFrame {
  return { function: 'Ve', ...BUNDLE, column, inApp: true, original: { file: '../../src/checkout.ts', line, column: 3, function: 'localTotal', context: { pre: [], line: text, post: [], earlier: 0 } } }
}

const STATEMENT: SourceStatement = { text: "const format = new Intl.NumberFormat(locale, { style: 'currency', currency, })", earlier: 0, line: 40 }
// V8 points at the inlined `new`, which the map puts on the return line; JavaScriptCore at the call's parenthesis.
const v8 = placed(458, 44, '  return format.format(totalCents / 100)')
const jsc = placed(479, 40, '  const format = new Intl.NumberFormat(locale, {')
const error = { type: 'RangeError', message: 'Invalid currency code : euro', stack: 'x' }

t.test('version 4 keys a site by its statement: one bug in every engine, where version 3 made two', async (t) => {
  const statementOf = (frame: StackFrame) => (frame.original ? STATEMENT : undefined)
  const chromium = groupEvent({ ...error, frames: [v8], statementOf }, 4)
  const webkit = groupEvent({ ...error, message: 'currency is not a well-formed currency code', frames: [jsc], statementOf }, 4)
  t.equal(chromium.fingerprint, webkit.fingerprint)
  t.equal(chromium.version, 4)
  t.equal(chromium.culprit, 'localTotal (src/checkout.ts:40)', "the culprit names the statement's first line in every engine")
  t.not(groupEvent({ ...error, frames: [v8] }, 3).fingerprint, groupEvent({ ...error, frames: [jsc] }, 3).fingerprint, 'version 3 keyed the lines')
  const other = groupEvent({ ...error, frames: [v8], statementOf: () => ({ ...STATEMENT, earlier: 1 }) }, 4)
  t.not(other.fingerprint, chromium.fingerprint, 'an identical statement later in the file is another site')
})

t.test('without a statement, version 4 keys the line as version 3 does, under its own prefix', async (t) => {
  const none = groupEvent({ ...error, frames: [v8] }, 4)
  t.equal(groupEvent({ ...error, frames: [v8], statementOf: () => undefined }, 4).fingerprint, none.fingerprint, 'no symbolicator and no statement read the same')
  t.not(groupEvent({ ...error, frames: [jsc] }, 4).fingerprint, none.fingerprint, 'two lines, two sites')
  t.equal(none.culprit, 'localTotal (src/checkout.ts:44)')
  t.not(none.fingerprint, groupEvent({ ...error, frames: [v8] }, 3).fingerprint, 'version 4 fingerprints never meet version 3 ones')
  const throwing = groupEvent({ ...error, frames: [v8], statementOf: () => { throw new Error('boom') } }, 4)
  t.equal(throwing.fingerprint, none.fingerprint, 'a statement lookup that throws is no statement')
  const bare = { ...v8, original: { ...v8.original!, context: undefined } }
  let asked = 0
  groupEvent({ ...error, frames: [bare], statementOf: () => (asked++, STATEMENT) }, 4)
  t.equal(asked, 0, 'a site without source text is not asked for a statement')
})

t.test('the recorded corpus: version 4 makes one issue per defect, and splits nothing version 3 kept together', async (t) => {
  const corpus = loadCorpus()
  const byDefect = (grouped: Awaited<ReturnType<typeof groupCorpus>>): Map<string, Set<string>> => {
    const out = new Map<string, Set<string>>()
    for (const { event, result } of grouped) out.set(event.defect, (out.get(event.defect) ?? new Set()).add(result.fingerprint))
    return out
  }
  const v4 = byDefect(await groupCorpus(corpus, 4))
  const v3 = byDefect(await groupCorpus(corpus, 3))
  t.same([...v4].filter(([, prints]) => prints.size > 1).map(([defect]) => defect), [], 'no defect split')
  t.equal(new Set([...v4.values()].flatMap((prints) => [...prints])).size, v4.size, 'no two defects share a fingerprint')
  t.equal(v3.get('checkout.localTotal/bad-currency')!.size, 2, 'version 3 split the multi-line statement by engine')
  const multi = (await groupCorpus({ ...corpus, events: corpus.events.filter((e) => e.bug === 'multi-line') }, 4)).map(({ result }) => result.culprit)
  t.same(new Set(multi), new Set(['localTotal (src/checkout.ts:39)', 'localTotal (src/checkout.ts:43)']), 'each build names the const statement, whatever the engine')
})

t.test('a name the code wrote is kept in the title only: the fingerprint reads the message as before', async (t) => {
  const decoder = placed(120, 12, '  return stream.h264Decoder(stream.frame)')
  const named = groupEvent({ type: 'TypeError', message: 'e.h264Decoder is not a function', stack: 'x', frames: [decoder] }, 4)
  t.equal(named.title, 'TypeError: stream.h264Decoder is not a function')
  t.equal(named.maskedTitle, 'TypeError: stream.<id> is not a function', 'the reading an issue stored before kept ids has')
  const site = groupEvent({ type: 'TypeError', message: 'e.h265Decoder is not a function', stack: 'x', frames: [decoder] }, 4)
  t.equal(site.fingerprint, named.fingerprint, 'the site keys the issue; a title is never part of a fingerprint')
  const bare = groupEvent({ type: 'TypeError', message: "Cannot read properties of undefined (reading 'sha256Digest')", stack: '' }, 4)
  t.equal(bare.title, "TypeError: Cannot read properties of undefined (reading 'sha256Digest')")
  t.equal(bare.fingerprint, groupEvent({ type: 'TypeError', message: "Cannot read properties of undefined (reading 'sha512Digest')", stack: '' }, 4).fingerprint, 'the message template masks it as it did')
})
