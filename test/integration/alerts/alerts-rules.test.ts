/**
 * The alert rules end to end (docs/alerts.md): events through the ingress, the grouper and the
 * alerter to a loopback chat. Before saying that something did not alert, each test waits until
 * everything was stored, decided and delivered (settled()).
 */
import t from 'tap'
import { setAlertRule } from '../../../services/alerter/commands.js'
import { changeFields } from '../../../shared/domain/issue-changes.js'
import { startAlertStack } from '../../helpers/alerts.js'
import { waitFor } from '../../helpers/stack.js'

t.setTimeout(120_000)

t.test('a new issue alerts once with its title and link, and its second event does not alert again', async (t) => {
  const a = await startAlertStack(t)
  const issue = await a.issueOf(await a.send('checkoutTotal'))
  const [post] = await waitFor(async () => (a.posts().length > 0 ? a.posts() : undefined), 10_000)
  t.equal(post, `Alert for e2e:\n• \`Error: checkoutTotal failed\`: new issue. ${a.stack.config.baseUrl.replace(/\/+$/, '')}/projects/${a.stack.projectId}/issues/${issue}`, 'the title as inline code, the rule, the link')
  await a.send('checkoutTotal')
  await a.settled()
  t.equal(a.posts().length, 1, 'the second event posted nothing')
  const { rows } = await a.stack.db.query<{ kind: string; state: string; sends: number }>(
    'SELECT f.kind, d.state, d.sends FROM alert_firings f JOIN alert_deliveries d ON d.id = f.delivery_id WHERE f.issue_id = $1',
    [issue],
  )
  t.same(rows, [{ kind: 'new_issue', state: 'delivered', sends: 1 }], 'one firing, delivered by one post')
  const health = await (await fetch(`http://127.0.0.1:${a.stack.worker!.healthPort}/health`)).text()
  t.match(health, /alerts: posting=0 max_concurrent=4 chat=plugin loaded pending=0 sending=0/, '/health shows the alerter')
})

t.test('a resolved issue that gets an event again alerts as a regression, and a second regression within the hour does not', async (t) => {
  const a = await startAlertStack(t)
  const issue = await a.issueOf(await a.send('loadProfile'))
  await a.settled()
  const resolve = () => a.stack.db.query(`UPDATE issues SET triage = 'resolved', resolved_at = clock_timestamp(), resolved_mode = 'now' WHERE id = $1`, [issue])
  await resolve()
  await a.send('loadProfile')
  await a.settled()
  t.match(a.posts().at(-1), /^Alert for e2e:\n• `Error: loadProfile failed`: regression: it came back after it was resolved\. /)
  await resolve()
  await a.send('loadProfile')
  await a.settled()
  const { rows } = await a.stack.db.query<{ triage: string }>('SELECT triage FROM issues WHERE id = $1', [issue])
  t.equal(rows[0]!.triage, 'open', 'the grouper did regress it again')
  t.equal(a.posts().length, 2, 'but only the new issue and the first regression were posted')
  const fired = await a.stack.db.query<{ kind: string }>('SELECT kind FROM alert_firings WHERE issue_id = $1 ORDER BY fired_at', [issue])
  t.same(fired.rows.map((row) => row.kind), ['new_issue', 'regression'], 'one firing per issue and rule in the hour')
})

t.test('a spike alerts once an issue passes its events in the minutes, not at them', async (t) => {
  const a = await startAlertStack(t)
  t.same(await setAlertRule(a.stack.db, a.stack.projectId, { kind: 'spike', enabled: true, spikeEvents: 3, spikeUsers: 0, spikeMinutes: 10 }), [], 'the spike rule is saved at more than 3 events in 10 minutes')
  const issue = await a.issueOf(await a.send('syncCart'))
  for (let i = 0; i < 2; i++) await a.send('syncCart')
  await a.settled()
  t.same(a.posts().map((post) => post.includes('spike')), [false], 'three events: the new issue only')
  await a.send('syncCart')
  await a.settled()
  t.match(a.posts().at(-1), /`Error: syncCart failed`: spike: more than 3 events in 10 minutes\. .*\/issues\//)
  for (let i = 0; i < 3; i++) await a.send('syncCart')
  await a.settled()
  const fired = await a.stack.db.query<{ kind: string; detail: { events: number } }>(`SELECT kind, detail FROM alert_firings WHERE issue_id = $1 AND kind = 'spike'`, [issue])
  t.equal(fired.rows.length, 1, 'one spike in the hour, however many events follow')
  t.equal(fired.rows[0]!.detail.events, 4, 'counted up to one past the threshold')
  t.equal(a.posts().length, 2, 'the new issue and the spike, posted once each')
})

t.test('noise and ignored issues never alert, and a rule turned off never fires', async (t) => {
  const a = await startAlertStack(t)
  t.same(await setAlertRule(a.stack.db, a.stack.projectId, { kind: 'spike', enabled: true, spikeEvents: 1, spikeUsers: 0, spikeMinutes: 10 }), [], 'a spike at more than 1 event')
  const noise = await a.issueOf(await a.send('observer', { error: { type: 'Error', message: 'ResizeObserver loop completed with undelivered notifications.', stack: '' } }))
  const ignored = await a.issueOf(await a.send('quietWidget'))
  await a.settled()
  await a.stack.db.query(`UPDATE issues SET triage = 'ignored' WHERE id = $1`, [ignored])
  for (let i = 0; i < 3; i++) {
    await a.send('quietWidget')
    await a.send('observer', { error: { type: 'Error', message: 'ResizeObserver loop completed with undelivered notifications.', stack: '' } })
  }
  t.same(await setAlertRule(a.stack.db, a.stack.projectId, { kind: 'new_issue', enabled: false }), [], 'the new-issue rule turned off')
  const unannounced = await a.issueOf(await a.send('neverAnnounced'))
  await a.settled()
  const fired = await a.stack.db.query<{ issue_id: string; kind: string }>('SELECT issue_id, kind FROM alert_firings ORDER BY fired_at')
  t.same(fired.rows, [{ issue_id: ignored, kind: 'new_issue' }], 'only the ignored issue\'s first event, while it was still open')
  t.notOk(fired.rows.some((row) => row.issue_id === noise || row.issue_id === unannounced), 'noise and a new issue with its rule off: nothing')
  t.equal(a.posts().length, 1, 'one message in all')
})

t.test('a redelivered batch whose first entry was lost still alerts the issue it opened, once', async (t) => {
  const a = await startAlertStack(t)
  // The grouper committed the issue and died before its entry reached the stream: the batch, stored
  // again, names the issue without new events and without the "created" its first entry had.
  const { rows } = await a.stack.db.query<{ id: string }>(
    `INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, culprit, first_seen, last_seen, event_count, user_count, session_count)
     VALUES ($1, 'error', gen_random_uuid()::text, 4, 'new', 'Error: lostEntry failed', '', now(), now(), 1, 1, 1) RETURNING id`,
    [a.stack.projectId],
  )
  const issue = rows[0]!.id
  const redeliver = () => a.stack.redis.xadd(a.stack.keys.issueChanges, '*', 'changes', changeFields([{ issueId: issue, projectId: a.stack.projectId, releases: [], created: false, regressed: false, events: 0, receivedAt: Date.now() }]).changes!)
  await redeliver()
  const [post] = await waitFor(async () => (a.posts().length > 0 ? a.posts() : undefined), 10_000)
  t.match(post, /`Error: lostEntry failed`: new issue\./, 'the issue opened within the hour alerts as new')
  await redeliver()
  await a.settled()
  t.equal(a.posts().length, 1, 'the same batch redelivered again posts nothing more')
  const fired = await a.stack.db.query<{ kind: string }>('SELECT kind FROM alert_firings WHERE issue_id = $1', [issue])
  t.same(fired.rows, [{ kind: 'new_issue' }], 'one firing')
})
