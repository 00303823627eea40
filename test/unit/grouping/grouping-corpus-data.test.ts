import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping'
import t from 'tap'
import { BUGS, loadCorpus, mapForFile, type CorpusEvent, type CorpusMap } from '../../fixtures/grouping-corpus/corpus.js'

// The recorded corpus is data other tests and the grouping benchmark trust: these checks keep a
// regeneration honest (see test/fixtures/grouping-corpus/README.md). The engine facts at the end
// are what the fingerprint has to cope with; when one fails after a regeneration, an engine changed.

const corpus = loadCorpus()
const BROWSERS = ['chromium', 'firefox', 'webkit'] as const
const BUILDS = ['a', 'b'] as const
/** "url:line:column" at the end of a V8 ("at f (url:1:2)", "at url:1:2") or SpiderMonkey/JavaScriptCore ("f@url:1:2") frame. */
const FRAME_URL = /(https?:\/\/[^\s()@]+?):(\d+):(\d+)\)?$/

interface Frame {
  /** The frame's text before its location: "at qe (", "qe@", "Ye/<@", "map@[native code]". */
  head: string
  url?: string
  line?: number
  column?: number
}

function framesOf(event: CorpusEvent): Frame[] {
  return event.body.error.stack
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) => {
      const match = FRAME_URL.exec(line)
      if (!match) return { head: line }
      return { head: line.slice(0, match.index), url: match[1]!, line: Number(match[2]), column: Number(match[3]) }
    })
}

const traces = new Map<CorpusMap, TraceMap>()

/** The original source file of a frame with a location (relative to the app: src/…, node_modules/…). */
function sourceOf(event: CorpusEvent, frame: Frame): string | undefined {
  return originalOf(event, frame)?.source.replace(/^(\.\.\/)+/, '')
}

/** Where the chunk's map puts a frame with a location, with the text of that original line. */
function originalOf(event: CorpusEvent, frame: Frame): { source: string; text: string } | undefined {
  const map = mapForFile(corpus, event, frame.url!)
  if (!map) return undefined
  let trace = traces.get(map)
  if (!trace) traces.set(map, (trace = new TraceMap(map.mapText)))
  const position = originalPositionFor(trace, { line: frame.line!, column: frame.column! - 1 })
  if (position.source === null || position.line === null) return undefined
  const content = map.sourceMap.sourcesContent?.[trace.resolvedSources.indexOf(position.source)] ?? ''
  return { source: position.source, text: content.split('\n')[position.line - 1]?.trim() ?? '' }
}

function eventsOf(bug: string, browser: string, build = 'a'): CorpusEvent[] {
  return corpus.events.filter((event) => event.bug === bug && event.browser === browser && event.build === build)
}

t.test('every bug was thrown at least three times in each browser and build, each event labelled with its defect', async (t) => {
  for (const bug of BUGS) {
    for (const browser of BROWSERS) {
      for (const build of BUILDS) {
        const events = eventsOf(bug.name, browser, build)
        t.ok(events.length >= 3, `${bug.name} in ${browser}, build ${build}: ${events.length} events`)
        t.ok(events.every((event) => event.defect === bug.defect), `${bug.name} events carry ${bug.defect}`)
      }
    }
  }
  t.equal(new Set(BUGS.map((bug) => bug.defect)).size, BUGS.length - 1, 'caller-a and caller-b share one defect; every other bug is its own')
})

t.test('every throw is a visit of its own: its own event id, session and user, with the release of its build', async (t) => {
  const distinct = (pick: (event: CorpusEvent) => unknown): number => new Set(corpus.events.map(pick)).size
  t.equal(distinct((event) => event.body.event_id), corpus.events.length)
  t.equal(distinct((event) => event.body.session_id), corpus.events.length)
  t.equal(distinct((event) => event.body.user?.id), corpus.events.length)
  const releases = new Map(corpus.maps.map((map) => [map.build, map.release]))
  t.ok(corpus.events.every((event) => event.body.release === releases.get(event.build)), 'events of build a carry its release, those of b theirs')
  t.ok(corpus.events.every((event) => event.body.breadcrumbs.some((crumb) => crumb.message === `button#bug-${event.bug}`)), 'the click that threw is the last thing in every trail')
})

t.test('every frame in a bundle has its chunk\'s map, named by the debug id the event carries', async (t) => {
  let frames = 0
  for (const event of corpus.events) {
    for (const frame of framesOf(event).filter((f) => f.url)) {
      frames++
      const path = new URL(frame.url!).pathname
      const entry = corpus.maps.find((map) => map.build === event.build && map.path === path)
      if (!entry) t.fail(`${event.bug} in ${event.browser}: no map for ${path}`)
      else if (event.body.debug_ids?.[frame.url!] !== entry.debugId) t.fail(`${event.bug} in ${event.browser}: debug id of ${path} is ${event.body.debug_ids?.[frame.url!]}`)
      const source = sourceOf(event, frame)
      if (!source) t.fail(`${event.bug} in ${event.browser}: ${frame.url}:${frame.line}:${frame.column} maps nowhere`)
    }
  }
  t.ok(frames > 1000, `${frames} frames checked`)
  t.ok(corpus.maps.every((map) => map.sourceMap.sourcesContent?.every((content) => typeof content === 'string')), 'every map carries its sources')
  t.ok(corpus.maps.every((map) => !map.code.includes('sourceMappingURL')), 'no chunk points at its map: the maps are hidden')
  t.ok(new Set(corpus.maps.filter((map) => map.build === 'a').map((map) => map.path.replace(/-[\w-]+\.js$/, ''))).size >= 2, 'build a is split into several chunks')
})

t.test('an event with a stack has a frame in the file its defect names', async (t) => {
  for (const event of corpus.events) {
    const located = framesOf(event).filter((frame) => frame.url)
    if (located.length === 0) continue
    const file = `src/${event.defect.split('.', 1)[0]}.ts`
    if (!located.some((frame) => sourceOf(event, frame) === file)) t.fail(`${event.bug} in ${event.browser}, build ${event.build}: no frame in ${file}`)
  }
  t.pass('checked every event with frames')
})

t.test('build b renamed and moved what build a minified: no frame position recurs, and named frames are named otherwise', async (t) => {
  const position = (frame: Frame): string => `${new URL(frame.url!).pathname.replace(/-[\w-]+\.js$/, '')}:${frame.line}:${frame.column}`
  for (const a of corpus.events.filter((event) => event.build === 'a')) {
    const b = corpus.events.find((event) => event.build === 'b' && event.browser === a.browser && event.bug === a.bug && event.throw === a.throw)!
    const inA = framesOf(a).filter((frame) => frame.url)
    const inB = framesOf(b).filter((frame) => frame.url)
    const shared = inA.map(position).filter((p) => inB.map(position).includes(p))
    if (shared.length > 0) t.fail(`${a.bug} in ${a.browser}: ${shared.join(', ')} in both builds`)
    const names = (frames: Frame[]): string => frames.map((frame) => frame.head).join('|')
    if (/\w@|at \w+ \(/.test(names(inA)) && names(inA) === names(inB)) t.fail(`${a.bug} in ${a.browser}: the same function names in both builds: ${names(inA)}`)
  }
  t.pass('compared every throw of build a with its twin in build b')
})

t.test('the engines differ as recorded: constructor frames, stack formats, tail calls, empty stacks', async (t) => {
  const top = (event: CorpusEvent): string | undefined => {
    const frame = framesOf(event).find((f) => f.url)
    return frame && sourceOf(event, frame)
  }
  t.ok(eventsOf('subclass', 'chromium').every((event) => top(event) === 'src/profile.ts'), 'V8 starts the subclass stack at the throw')
  for (const browser of ['firefox', 'webkit']) {
    t.ok(eventsOf('subclass', browser).every((event) => top(event) === 'src/errors.ts'), `${browser} starts it in ValidationError's constructor`)
  }
  t.ok(corpus.events.filter((event) => event.browser === 'chromium' && event.body.error.stack).every((event) => event.body.error.stack.startsWith(`${event.body.error.type}: `)), 'V8 stacks open with "Type: message"')
  t.ok(
    corpus.events.filter((event) => event.browser === 'webkit').every((event) => framesOf(event).every((frame) => /^[\w$.]*@$/.test(frame.head) || /^[\w$]+@\[native code\]$/.test(frame.head))),
    'JavaScriptCore frames read fn@url:line:column, fn@[native code], or @url for anonymous functions',
  )
  t.ok(eventsOf('anon-map', 'webkit').every((event) => framesOf(event).length === 3), "JavaScriptCore drops cartTotals' frame: map() is in tail position (proper tail calls)")
  const topLine = (event: CorpusEvent): string | undefined => {
    const frame = framesOf(event).find((f) => f.url)
    return frame && originalOf(event, frame)?.text
  }
  for (const browser of ['chromium', 'firefox']) {
    t.ok(corpus.events.filter((event) => event.bug === 'multi-line' && event.browser === browser).every((event) => topLine(event) === 'return format.format(totalCents / 100)'), `${browser}'s multi-line frame maps to the return the minifier inlined the const into`)
  }
  t.ok(corpus.events.filter((event) => event.bug === 'multi-line' && event.browser === 'webkit').every((event) => topLine(event) === 'const format = new Intl.NumberFormat(locale, {'), "JavaScriptCore's maps into the multi-line const statement")
  for (const bug of ['string-rejection', 'non-error-throw']) {
    t.ok(corpus.events.filter((event) => event.bug === bug).every((event) => event.body.error.stack === ''), `${bug} has no stack in any engine`)
  }
  t.ok(['firefox', 'webkit'].every((browser) => eventsOf('fetch-failed', browser).every((event) => event.body.error.stack === '')), 'a failed fetch has no stack in Firefox and WebKit')
  t.ok(eventsOf('fetch-failed', 'chromium').every((event) => top(event)?.startsWith('node_modules/@svc/sdk/')), "in Chromium its top frame is the SDK's fetch wrapper")
})
