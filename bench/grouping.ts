/**
 * npm run bench:grouping: groups the recorded corpus (real Chromium, Firefox ESR and WebKitGTK
 * events of a minified app and of a rebuild that renamed every identifier) with fingerprint
 * version 4 and, side by side, versions 3 and 2, and prints pairwise precision and recall against
 * the defect labels, the share of stack-carrying events whose throw site maps to the right file,
 * and the time an event takes, symbolication included, on a first pass (version 4 parses the sources
 * its throw sites land in then) and warm.
 */
import { loadCorpus } from '../test/fixtures/grouping-corpus/corpus.js'
import { groupCorpus, siteMappedRight } from './grouping/corpus.js'
import { pairwise, percent } from './grouping/metrics.js'

const corpus = loadCorpus()
const count = (key: (e: (typeof corpus.events)[number]) => string): string => {
  const counts = new Map<string, number>()
  for (const event of corpus.events) counts.set(key(event), (counts.get(key(event)) ?? 0) + 1)
  return [...counts].map(([name, n]) => `${name} ${n}`).join(', ')
}
console.log(`corpus: ${corpus.events.length} events of ${new Set(corpus.events.map((e) => e.defect)).size} defects (${count((e) => e.browser)}; build ${count((e) => e.build)})`)

for (const version of [4, 3, 2]) {
  // The first pass parses every map, and for version 4 every source its throw sites land in; the
  // second shows what an event costs once a grouper has seen them (its map cache is per pass, the
  // parses of sources are kept).
  const start = performance.now()
  const grouped = await groupCorpus(corpus, version)
  const ms = performance.now() - start
  const again = performance.now()
  await groupCorpus(corpus, version)
  const warmMs = performance.now() - again
  const score = pairwise(grouped.map(({ event, result }) => ({ defect: event.defect, group: result.fingerprint })))
  const withStack = grouped.filter((g) => g.result.frames.some((frame) => frame.inApp))
  const mapped = withStack.filter(siteMappedRight).length
  // The throw site is a notion of versions 3 and 4; version 2 is shown for its precision and recall.
  const sites = version >= 3 ? `; top frames mapped to the right file ${mapped}/${withStack.length} (${percent(withStack.length ? mapped / withStack.length : 1)})` : ''
  console.log(`version ${version}: ${new Set(grouped.map((g) => g.result.fingerprint)).size} issues; pairwise precision ${percent(score.precision)}, recall ${percent(score.recall)}${sites}; ${(ms / grouped.length).toFixed(2)} ms an event on the first pass, ${(warmMs / grouped.length).toFixed(2)} ms warm`)
  for (const pair of score.merged) console.log(`  merged: ${pair}`)
  for (const defect of score.split) console.log(`  split: ${defect}`)
}
