import t from 'tap'
import { detectFriction } from '../../../services/matcher/friction/detectors.js'
import { CONTROLS, expectedKind, loadCorpus, problemOf, RELEASES, SESSIONS, type CorpusRecording } from '../../fixtures/matching-corpus/corpus.js'

// The recorded matching corpus is data the corpus test and bench:match trust: these checks keep a
// regeneration honest (test/fixtures/matching-corpus/README.md). The detectors are run here as the
// scan runs them, so a finding the matcher is scored on is one the shopper's action made.

const corpus = loadCorpus()

function eventsOf(recording: CorpusRecording): unknown[] {
  return recording.chunks.flatMap((chunk) => chunk.events)
}

t.test('every session of the script was recorded once, whole, on its release, by a shopper of its own', async (t) => {
  t.equal(corpus.length, SESSIONS.length)
  for (const [i, recording] of corpus.entries()) {
    const session = SESSIONS[i]!
    t.same([recording.session, recording.user, recording.release], [i + 1, session.user, session.release], `session ${i + 1}`)
    t.same(recording.actions.map((action) => [action.how, action.control]), session.actions.map((action) => [action.how, action.control]), `session ${i + 1} did what the script says`)
    t.same(recording.chunks.map((chunk) => chunk.seq), recording.chunks.map((_, seq) => seq), `session ${i + 1}'s chunks are whole`)
  }
  t.equal(new Set(corpus.map((recording) => recording.recording_id)).size, corpus.length, 'one recording per session')
  t.equal(new Set(corpus.map((recording) => recording.user)).size, corpus.length, 'and one user per session')
  const firstOf2 = corpus.findIndex((recording) => recording.release === RELEASES[1])
  t.ok(corpus.slice(firstOf2).every((recording) => recording.release === RELEASES[1]), 'release 2 came after release 1')
})

t.test('each action makes the finding its control should make, in its moment; nothing else is found', async (t) => {
  let findings = 0
  for (const recording of corpus) {
    const found = detectFriction(eventsOf(recording))
    findings += found.length
    for (const action of recording.actions) {
      const mine = found.filter((finding) => action.from <= finding.at && finding.at <= action.to)
      const kind = expectedKind(action)
      t.same(mine.map((finding) => finding.kind), kind ? [kind] : [], `session ${recording.session}: ${action.how} on ${action.control}`)
    }
    const accounted = found.filter((finding) => recording.actions.some((action) => action.from <= finding.at && finding.at <= action.to))
    t.equal(accounted.length, found.length, `session ${recording.session}: no finding outside its actions`)
  }
  t.ok(findings >= 80, `${findings} findings`)
})

t.test('the corpus holds what matching must tell apart and keep together', async (t) => {
  const screens = new Set(CONTROLS.map((control) => control.screen))
  t.ok(screens.size >= 4, `${screens.size} screens`)
  for (const screen of screens) {
    const behaviours = new Set(CONTROLS.filter((control) => control.screen === screen).map((control) => control.behaviour))
    t.same([...behaviours].sort(), ['dead', 'throws', 'works'], `${screen} has dead, throwing and working controls`)
  }
  const problems = new Map<string, Set<string>>()
  for (const recording of corpus) {
    for (const action of recording.actions) {
      const problem = problemOf(action)
      if (problem) problems.set(problem, (problems.get(problem) ?? new Set()).add(recording.user))
    }
  }
  t.ok(problems.size >= 20, `${problems.size} problems`)
  for (const [problem, users] of problems) t.ok(users.size >= 2, `${problem}: ${users.size} users`)
  t.ok([...problems.keys()].some((p) => p.endsWith('rage_click')) && [...problems.keys()].some((p) => p.endsWith('dead_click')), 'rage and dead clicks')
  t.ok(problems.has('orders.invoice error_after_click (timed out)') && problems.has('orders.invoice error_after_click (missing field)'), 'one control throwing two different errors')
  for (const change of ['text', 'id', 'text and id'] as const) {
    const changed = CONTROLS.filter((control) => control.change === change)
    t.ok(changed.length > 0, `a control changed its ${change} in release 2`)
    for (const control of changed) {
      const releases = new Set(corpus.filter((recording) => recording.actions.some((action) => action.control === control.name && expectedKind(action))).map((recording) => recording.release))
      t.equal(releases.size, 2, `${control.name} is found in both releases`)
    }
  }
  const targets = (release: string, control: string): Set<string> => {
    const found = corpus.filter((recording) => recording.release === release).flatMap((recording) => detectFriction(eventsOf(recording)).filter((finding) => recording.actions.some((action) => action.control === control && action.from <= finding.at && finding.at <= action.to)))
    return new Set(found.map((finding) => finding.target))
  }
  t.same([...targets(RELEASES[0], 'checkout.pay')], ['button#pay.btn.primary "Pay"'], 'release 1 recorded Pay as it read then')
  t.same([...targets(RELEASES[1], 'checkout.pay')], ['button#pay.button.button--v2.primary "Pay now"'], 'and release 2 reworded it')
  t.same([...targets(RELEASES[1], 'checkout.save-card')], ['button#keep-card.button.button--v2 "Save card"'], 'Save card has a new id')
  t.same([...targets(RELEASES[0], 'account.edit-address'), ...targets(RELEASES[0], 'account.edit-payment')], ['button#edit-address.btn "Edit"', 'button#edit-payment.btn "Edit"'], 'two Edit buttons told apart only by their ids')
  t.same([...new Set([...targets(RELEASES[0], 'orders.change-delivery'), ...targets(RELEASES[0], 'orders.change-billing')])], ['button.btn.change "Change"'], 'two Change buttons that read the same')
})

t.test("the issue's checkout: four users rage at Pay, then two at Save card beside it", async (t) => {
  const rage = (control: string) => corpus.slice(0, 6).filter((recording) => recording.actions.some((action) => action.how === 'rage' && action.control === control)).map((recording) => recording.session)
  t.same(rage('checkout.pay'), [1, 2, 3, 4])
  t.same(rage('checkout.save-card'), [5, 6])
})
