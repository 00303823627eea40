import t from 'tap'
import { checkRule } from '../../services/alerter/commands.js'
import { foldChanges } from '../../services/alerter/decide.js'
import { composeAlert, ruleWords } from '../../services/alerter/message.js'
import { changeFields, changesOf } from '../../shared/domain/issue-changes.js'

t.test('an issue-changes entry written before the alerter fields reads as not created, not regressed, no events', async (t) => {
  const old = { changes: JSON.stringify([{ i: 'issue-1', p: 'project-1', r: ['1.0.0'] }]) }
  t.same(changesOf(old), [{ issueId: 'issue-1', projectId: 'project-1', releases: ['1.0.0'], created: false, regressed: false, events: 0, receivedAt: 0 }])
})

t.test('an issue-changes entry carries what the alerter needs through a round trip', async (t) => {
  const change = { issueId: 'issue-1', projectId: 'project-1', releases: [], created: true, regressed: false, events: 3, receivedAt: 1_780_000_000_000 }
  t.same(changesOf(changeFields([change])), [change])
})

t.test('changes of one issue in several entries fold into one: created or regressed if any says so, events added, the earliest receipt', async (t) => {
  const base = { issueId: 'a', projectId: 'p', releases: [], created: false, regressed: false, events: 0, receivedAt: 0 }
  const folded = foldChanges([{ ...base, created: true, events: 2, receivedAt: 200 }, { ...base, regressed: true, events: 1, receivedAt: 100 }, { ...base, issueId: 'b', events: 5 }])
  t.same(folded, [{ ...base, created: true, regressed: true, events: 3, receivedAt: 100 }, { ...base, issueId: 'b', events: 5 }])
})

t.test('a spike rule needs whole numbers in range and one threshold above 0', async (t) => {
  t.same(checkRule({ kind: 'spike', enabled: true, spikeEvents: 100, spikeUsers: 0, spikeMinutes: 60 }), [])
  t.match(checkRule({ kind: 'spike', enabled: true, spikeEvents: 1.5, spikeUsers: -1, spikeMinutes: 1441 }), [{ code: 'bad_number', field: 'spikeEvents' }, { code: 'bad_number', field: 'spikeUsers' }, { code: 'bad_number', field: 'spikeMinutes' }])
  t.match(checkRule({ kind: 'spike', enabled: true, spikeEvents: 0, spikeUsers: 0 }), [{ code: 'spike_without_threshold' }])
  t.same(checkRule({ kind: 'spike', enabled: false, spikeEvents: 0, spikeUsers: 0 }), [], 'a spike turned off may keep zeros')
  t.match(checkRule({ kind: 'everything', enabled: true }), [{ code: 'unknown_kind', message: /the rules are new_issue, regression, spike/ }])
})

t.test('an alert message lists each firing with its inert title, its rule and the link to its issue', async (t) => {
  const text = composeAlert('Shop <b>', 'https://svc.example.com/', [
    { projectId: 'p1', issueId: 'i1', title: 'TypeError: `x` is <!here>', kind: 'new_issue', detail: {} },
    { projectId: 'p1', issueId: 'i2', title: '', kind: 'spike', detail: { events: 101, users: 3, spikeEvents: 100, spikeUsers: 20, spikeMinutes: 60 } },
  ])
  t.equal(text, [
    '2 alerts for Shop &lt;b&gt;:',
    "• `TypeError: 'x' is &lt;!here&gt;`: new issue. https://svc.example.com/projects/p1/issues/i1",
    '• `(no title)`: spike: more than 100 events in 60 minutes. https://svc.example.com/projects/p1/issues/i2',
  ].join('\n'))
  t.equal(ruleWords({ kind: 'spike', detail: { events: 5, users: 21, spikeEvents: 100, spikeUsers: 20, spikeMinutes: 10 } }), 'spike: more than 20 users in 10 minutes')
})

t.test('a burst of alerts lists the first ten and counts the rest with a link to the alerts page', async (t) => {
  const lines = Array.from({ length: 13 }, (_, i) => ({ projectId: 'p1', issueId: `i${i}`, title: `Error ${i}`, kind: 'new_issue' as const, detail: {} }))
  const text = composeAlert('Shop', 'https://svc.example.com', lines).split('\n')
  t.equal(text[0], '13 alerts for Shop:')
  t.equal(text.length, 12, 'the heading, ten alerts, the rest counted')
  t.equal(text[10], '• `Error 9`: new issue. https://svc.example.com/projects/p1/issues/i9')
  t.equal(text[11], '…and 3 more: https://svc.example.com/projects/p1/alerts')
})
