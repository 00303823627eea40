/**
 * The project's alerts page (docs/alerts.md): the rules as they apply (defaults first), each saved
 * through the alerter's command, numbers checked with an error per field and nothing saved when
 * one is wrong, the recent firings with their delivery's state, and the page refused to others.
 */
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { DashboardClient } from '../../helpers/dashboard.js'
import { inviteLink, joinWith } from '../../helpers/members.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'

/** A signed-in owner of the seeded project, on its alerts page (so the client holds its CSRF token). */
async function owner(stack: TestStack): Promise<{ client: DashboardClient; page: string; text: string }> {
  const client = new DashboardClient(stack.baseUrl)
  const email = `owner-${randomBytes(4).toString('hex')}@example.test`
  await client.signUp(email)
  await stack.db.query(`UPDATE projects SET owner_id = (SELECT id FROM users WHERE email = $2) WHERE id = $1`, [stack.projectId, email])
  const page = `/projects/${stack.projectId}/alerts`
  const opened = await client.get(page)
  if (opened.status !== 200) throw new Error(`the alerts page answered ${opened.status}`)
  return { client, page, text: opened.text }
}

async function rules(stack: TestStack): Promise<unknown[]> {
  return (await stack.db.query('SELECT kind, enabled, spike_events, spike_users, spike_minutes FROM alert_rules ORDER BY kind')).rows
}

t.test('the alerts page shows the default rules and saves a rule turned on with its numbers', async (t) => {
  const stack = await startTestStack(t)
  const { client, page, text } = await owner(stack)
  t.match(text, /id="enabled-new_issue" name="enabled" value="on" checked/, 'new issue is on by default')
  t.match(text, /id="enabled-regression" name="enabled" value="on" checked/, 'regression too')
  t.match(text, /id="enabled-spike" name="enabled" value="on">/, 'spike is off by default')
  t.match(text, /id="spike_events" name="spike_events" type="text" inputmode="numeric" value="100"/, 'with 100 events')
  t.match(text, /id="spike_users"[^>]*value="20"/, '20 users')
  t.match(text, /id="spike_minutes"[^>]*value="60"/, 'in 60 minutes')
  t.match(text, 'No alert has fired yet.')
  const saved = await client.post(page, { kind: 'spike', enabled: 'on', spike_events: '50', spike_users: '0', spike_minutes: '15' })
  t.equal(saved.status, 303)
  t.equal(saved.location, `${page}?saved=spike`)
  t.same(await rules(stack), [{ kind: 'spike', enabled: true, spike_events: 50, spike_users: 0, spike_minutes: 15 }])
  const after = await client.get(saved.location)
  t.match(after.text, 'The spike rule was saved.')
  t.match(after.text, /id="enabled-spike" name="enabled" value="on" checked/)
  const off = await client.post(page, { kind: 'new_issue' })
  t.equal(off.status, 303, 'an unticked box turns a rule off')
  t.same((await rules(stack))[0], { kind: 'new_issue', enabled: false, spike_events: 100, spike_users: 20, spike_minutes: 60 })
})

t.test('numbers that are not whole numbers in range are refused field by field, and nothing is saved', async (t) => {
  const stack = await startTestStack(t)
  const { client, page } = await owner(stack)
  const refused = await client.post(page, { kind: 'spike', enabled: 'on', spike_events: 'lots', spike_users: '20', spike_minutes: '0' })
  t.equal(refused.status, 400)
  t.match(refused.text, /id="spike_events"[^>]*value="lots" aria-invalid="true"/, 'the typed text is kept and marked')
  t.match(refused.text, 'Events must be a whole number from 0 to 10000000. Nothing was saved.')
  t.match(refused.text, 'Minutes must be a whole number from 1 to 1440. Nothing was saved.')
  t.same(await rules(stack), [], 'no row written')
  const empty = await client.post(page, { kind: 'spike', enabled: 'on', spike_events: '0', spike_users: '0', spike_minutes: '10' })
  t.equal(empty.status, 400)
  t.match(empty.text, 'A spike needs a number of events or of users above 0; set one, or turn the spike rule off.')
  const unknown = await client.post(page, { kind: 'everything', enabled: 'on' })
  t.equal(unknown.status, 400)
  t.same(await rules(stack), [], 'still nothing written')
})

t.test('recent firings are listed with their delivery state and the issue title escaped', async (t) => {
  const stack = await startTestStack(t)
  const { rows: [issue] } = await stack.db.query<{ id: string }>(`INSERT INTO issues (project_id, fingerprint, grouping_version, title, first_seen, last_seen) VALUES ($1, 'fp', 4, '<img src=x onerror=alert(1)>', now(), now()) RETURNING id`, [stack.projectId])
  const { rows: [delivery] } = await stack.db.query<{ id: string }>(`INSERT INTO alert_deliveries (project_id, state, error) VALUES ($1, 'broken', 'the chat answered 403 invalid_token') RETURNING id`, [stack.projectId])
  await stack.db.query(`INSERT INTO alert_firings (project_id, issue_id, kind, window_start, delivery_id) VALUES ($1, $2, 'new_issue', now(), $3), ($1, $2, 'regression', now(), NULL)`, [stack.projectId, issue!.id, delivery!.id])
  const { text } = await owner(stack)
  t.match(text, `<a href="/projects/${stack.projectId}/issues/${issue!.id}">&lt;img src=x onerror=alert(1)&gt;</a>`)
  t.notMatch(text, '<img src=x', 'the title is never markup')
  t.match(text, 'not delivered: the chat refused the webhook <span class="muted">the chat answered 403 invalid_token</span>')
  t.match(text, 'not sent (no chat connected, or it was broken)')
})

t.test('another person gets the alerts page and its form as not found', async (t) => {
  const stack = await startTestStack(t)
  await owner(stack)
  const other = new DashboardClient(stack.baseUrl)
  await other.signUp(`other-${randomBytes(4).toString('hex')}@example.test`)
  t.equal((await other.get(`/projects/${stack.projectId}/alerts`)).status, 404)
  await other.get('/')
  t.equal((await other.post(`/projects/${stack.projectId}/alerts`, { kind: 'new_issue' })).status, 404)
  t.same(await rules(stack), [], 'nothing written')
})

t.test('a member sees the alerts page but cannot change a rule: owners only, and nothing is saved', async (t) => {
  const stack = await startTestStack(t)
  const { client: ownerClient, page } = await owner(stack)
  const member = await joinWith(stack, await inviteLink(ownerClient, stack.projectId))
  const seen = await member.get(page)
  t.equal(seen.status, 200, 'a member reads the rules')
  t.match(seen.text, /id="enabled-new_issue"/)
  const refused = await member.post(page, { kind: 'new_issue' })
  t.equal(refused.status, 403, 'a member changing a rule is refused')
  t.match(refused.text, 'Owners only')
  t.same(await rules(stack), [], 'no rule was written')
})
