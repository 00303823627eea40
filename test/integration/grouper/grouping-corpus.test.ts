/**
 * The recorded grouping corpus (test/fixtures/grouping-corpus: real Chromium, Firefox ESR and
 * WebKitGTK events of a minified app and of a rebuild that renamed its identifiers) through the
 * whole service: maps uploaded through the documented endpoint, events through the ingress, the
 * grouper on real PostgreSQL. Every defect must be exactly one issue, told in source terms.
 */
import t from 'tap'
import { pairwise } from '../../../bench/grouping/metrics.js'
import { loadCorpus } from '../../fixtures/grouping-corpus/corpus.js'
import { postEvent, startTestStack, waitFor } from '../../helpers/stack.js'

const corpus = loadCorpus()

t.test('the corpus groups one defect to one issue, across browsers, callers and rebuilds', async (t) => {
  t.setTimeout(180_000)
  const stack = await startTestStack(t, { worker: true })
  const key = await stack.mint('sourcemap')
  for (const map of corpus.maps) {
    const query = new URLSearchParams({ release: map.release, path: map.path })
    const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-API-Key': key }
    if (map.debugId) headers['X-Svc-Debug-Id'] = map.debugId
    const answer = await fetch(`${stack.baseUrl}/api/v1/sourcemaps?${query}`, { method: 'POST', headers, body: map.mapText })
    t.equal(answer.status, 201, `map of ${map.build}${map.path} uploaded`)
  }
  for (const event of corpus.events) {
    const answer = await postEvent(stack.baseUrl, event.body, { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey })
    if (answer.status !== 202) t.fail(`${event.bug} from ${event.browser} answered ${answer.status}`)
  }
  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === corpus.events.length, 60_000, 100)

  const { rows } = await stack.db.query<{ event_id: string; issue_id: string; title: string; culprit: string; grouping_version: number; stack_note: string | null }>(
    `SELECT e.payload->>'event_id' AS event_id, e.issue_id, i.title, i.culprit, i.grouping_version, e.grouping->>'stack_note' AS stack_note
       FROM events e JOIN issues i ON i.id = e.issue_id`,
  )
  const stored = new Map(rows.map((row) => [row.event_id, row]))
  const scored = corpus.events.map((event) => ({ defect: event.defect, group: stored.get(event.body.event_id)!.issue_id }))
  const score = pairwise(scored)
  t.same({ precision: score.precision, recall: score.recall }, { precision: 1, recall: 1 }, `merged: ${score.merged.join('; ') || 'none'}; split: ${score.split.join('; ') || 'none'}`)
  t.ok(rows.every((row) => row.grouping_version === 4), 'a new project groups with version 4')
  t.same(new Set(corpus.events.map((e) => e.browser)), new Set(['chromium', 'firefox', 'webkit']), 'the corpus has all three engines')
  t.same(new Set(corpus.events.map((e) => e.build)), new Set(['a', 'b']), 'and the rebuilt bundle')

  const issueOf = (bug: string) => stored.get(corpus.events.find((e) => e.bug === bug)!.body.event_id)!
  t.match(issueOf('caller-a').culprit, /^shippingLabel \(src\/format\.ts:\d+\)$/, 'culprits read function (src/file.ts:line)')
  t.notMatch(issueOf('user-data').title, /\d{3,}|example\.com/, 'titles carry no user data')
  t.match(issueOf('not-a-function').title, /getTracker/, 'a minified callee in the message is named as in the source')
  t.equal(issueOf('string-rejection').stack_note, 'not_an_error', 'a string rejection says why it has no frames')
})
