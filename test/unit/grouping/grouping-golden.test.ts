import t from 'tap'
import { GROUPING_VERSIONS } from '../../../services/grouper/grouping/index.js'
import { loadCorpus } from '../../fixtures/grouping-corpus/corpus.js'
import { compareGolden, fingerprintsOf, readGolden } from '../../fixtures/grouping-corpus/golden.js'

// The promise of docs/grouping.md: a frozen grouping version's fingerprints never move. Every
// version's fingerprints of the recorded corpus are checked in (test/fixtures/grouping-corpus/golden/)
// and must come out the same, event for event, whatever a shared helper does.

const corpus = loadCorpus()

for (const version of GROUPING_VERSIONS) {
  t.test(`version ${version} gives every recorded event its golden fingerprint`, async (t) => {
    const golden = readGolden(version)
    if (!golden) return void t.fail(`no golden/v${version}.json: a new version writes its own with test/fixtures/grouping-corpus/golden/write.ts --version ${version}`)
    t.equal(golden.version, version, 'the file says its version')
    const diff = compareGolden(corpus, golden, await fingerprintsOf(corpus, version))
    // The diff lists every event that moved; the message says how many and which bugs.
    t.same(diff.moved, [], `${diff.moved.length} fingerprint(s) moved, of ${[...new Set(diff.moved.map((line) => line.split(' ', 1)[0]))].join(', ')}: a frozen version's output changed; put it back`)
    t.same(diff.missing, [], `recorded events without a golden fingerprint (write.ts --version ${version} adds them):\n${diff.missing.join('\n')}`)
    t.same(diff.gone, [], 'every golden entry names a recorded event')
    t.ok(new Set(Object.values(golden.fingerprints)).size > 1, 'the file holds real fingerprints, not one value')
  })
}

t.test('a golden comparison names each event that moved, and the fingerprints before and after', async (t) => {
  const golden = readGolden(GROUPING_VERSIONS[0]!)!
  const event = corpus.events.find((e) => e.bug === 'multi-line' && e.browser === 'webkit')!
  const actual = new Map(Object.entries(golden.fingerprints))
  actual.set(event.body.event_id, 'f'.repeat(32))
  const diff = compareGolden(corpus, golden, actual)
  t.same(diff.moved, [`multi-line in webkit, build ${event.build}, throw ${event.throw} (event ${event.body.event_id}): ${golden.fingerprints[event.body.event_id]} → ${'f'.repeat(32)}`])
})
