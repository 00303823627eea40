import t, { type Test } from 'tap'
import { mintKey } from '../../../shared/keys.js'
import { approveNewProject, DashboardClient } from '../../helpers/dashboard.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'

/** An issue as the grouper leaves it. */
async function insertIssue(stack: TestStack, projectId: string, title = 'TypeError: cart is undefined'): Promise<string> {
  const { rows } = await stack.db.query<{ id: string }>(
    `INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, culprit, first_seen, last_seen, event_count, user_count, session_count)
     VALUES ($1, 'error', gen_random_uuid()::text, 4, 'new', $2, 'totalOf (src/cart.ts:6)', now(), now(), 3, 1, 1) RETURNING id`,
    [projectId, title],
  )
  return rows[0]!.id
}

interface Answer {
  status: number
  body: Record<string, unknown>
}

interface HistoryLine {
  action: string
  actor: { kind: string; id: string; label: string }
  from: string
  to: string
  reason: string
  detail: Record<string, unknown>
}

/** A signed-in owner's project, its api key, and requests with either credential. */
async function ownerProject(t: Test) {
  const stack = await startTestStack(t)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('owner@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')
  const key = await mintKey(stack.db, projectId, 'api', 'agent')
  const asAgent = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const response = await fetch(`${stack.baseUrl}/api/v1/projects/${projectId}${path}`, {
      method,
      headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    })
    return { status: response.status, body: JSON.parse(await response.text()) as Record<string, unknown> }
  }
  const asPerson = async (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    const response = await fetch(`${stack.baseUrl}/api/v1/projects/${projectId}${path}`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
    return { status: response.status, body: JSON.parse(await response.text()) as Record<string, unknown> }
  }
  const history = async (issueId: string) => (await asAgent('GET', `/issues/${issueId}/history`)).body.history as HistoryLine[]
  return { stack, projectId, key, asAgent, asPerson, history }
}

t.test('an agent resolves, ignores and reopens an issue; each change is in the history as the agent (the key id) with its reason', async (t) => {
  const { stack, projectId, key, asAgent, history } = await ownerProject(t)
  const issueId = await insertIssue(stack, projectId)

  const resolved = await asAgent('POST', `/issues/${issueId}/resolve`, { mode: 'now', reason: 'fixed by the cart guard' })
  t.equal(resolved.status, 200)
  t.match(resolved.body, { issue_id: issueId, changed: true, triage: { state: 'resolved', resolved_mode: 'now' } })
  const read = await asAgent('GET', `/issues/${issueId}`)
  t.match(read.body, { issue: { id: issueId }, triage: { state: 'resolved', resolved_mode: 'now' } }, 'the issue\'s own answer carries its triage')
  t.equal((await asAgent('POST', `/issues/${issueId}/resolve`, { mode: 'now' })).body.changed, false, 'resolving a resolved issue changes nothing')

  const until = new Date(Date.now() + 3_600_000).toISOString()
  const ignored = await asAgent('POST', `/issues/${issueId}/ignore`, { until, more_events: 50 })
  t.equal(ignored.status, 200)
  t.match(ignored.body.triage, { state: 'ignored', ignored_until: until, ignored_until_events: 53 })

  const reopened = await asAgent('POST', `/issues/${issueId}/reopen`)
  t.equal(reopened.status, 200)
  t.match(reopened.body.triage, { state: 'open', ignored_until: null, resolved_at: null })

  const lines = await history(issueId)
  t.same(lines.map((line) => line.action), ['reopen', 'ignore', 'resolve'], 'newest first, one line per change')
  for (const line of lines) t.same(line.actor, { kind: 'agent', id: key.id, label: `agent (key ${key.id})` })
  t.equal(lines[2]!.reason, 'fixed by the cart guard')
  t.match(lines[1], { from: 'resolved', to: 'ignored', detail: { until, more_events: 50 } })
  const { rows } = await stack.db.query<{ triage: string }>('SELECT triage FROM issues WHERE id = $1', [issueId])
  t.equal(rows[0]!.triage, 'open')
})

t.test('a session cookie acts as the person, and a post from another site is refused', async (t) => {
  const { stack, projectId, asPerson, history } = await ownerProject(t)
  const issueId = await insertIssue(stack, projectId)
  const resolved = await asPerson(`/issues/${issueId}/resolve`, { mode: 'next_release' })
  t.equal(resolved.status, 200)
  t.match(resolved.body.triage, { state: 'resolved', resolved_mode: 'next_release' })
  const { rows } = await stack.db.query<{ id: string }>(`SELECT id FROM users WHERE email = 'owner@example.test'`)
  t.match((await history(issueId))[0], { action: 'resolve', actor: { kind: 'person', id: rows[0]!.id, label: 'owner@example.test' } })

  const crossSite = await asPerson(`/issues/${issueId}/reopen`, {}, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })
  t.equal(crossSite.status, 403)
  t.equal(crossSite.body.code, 'cross_site_request')
  t.equal((await history(issueId)).length, 1, 'nothing was written')
})

t.test('bad input is a 400 with a stable code and the field; another project\'s issue is 404; nothing is written', async (t) => {
  const { stack, projectId, asAgent, history } = await ownerProject(t)
  const issueId = await insertIssue(stack, projectId)
  const cases: Array<[string, unknown, string, string | undefined]> = [
    ['resolve', { mode: 'later' }, 'invalid_mode', 'mode'],
    ['resolve', {}, 'invalid_mode', 'mode'],
    ['resolve', { mode: 'now', colour: 'red' }, 'unknown_field', 'colour'],
    ['resolve', { mode: 'now', reason: 'x'.repeat(1001) }, 'invalid_reason', 'reason'],
    ['resolve', '{"mode": ', 'invalid_json', undefined],
    ['resolve', '[1, 2]', 'invalid_json', undefined],
    ['ignore', { until: '2001-01-01T00:00:00Z' }, 'invalid_ignore', 'until'],
    ['ignore', { until: 'tomorrow' }, 'invalid_ignore', 'until'],
    ['ignore', { more_users: 0 }, 'invalid_ignore', 'more_users'],
    ['ignore', { more_events: 2.5 }, 'invalid_ignore', 'more_events'],
    ['merge', { into: 'not-an-id' }, 'invalid_merge', 'into'],
    ['merge', { into: issueId }, 'invalid_merge', 'into'],
  ]
  for (const [action, body, code, field] of cases) {
    const answer = await asAgent('POST', `/issues/${issueId}/${action}`, body)
    t.equal(answer.status, 400, `${action} ${JSON.stringify(body).slice(0, 40)} is refused`)
    t.equal(answer.body.code, code)
    t.equal(answer.body.field, field)
    t.ok(String(answer.body.message).length > 30, 'the message says what to do')
  }
  t.equal((await asAgent('POST', '/issues/not-a-uuid/resolve', { mode: 'now' })).body.code, 'invalid_id')

  const other = (await stack.db.query<{ id: string }>(`INSERT INTO projects (name) VALUES ('Other') RETURNING id`)).rows[0]!.id
  const foreign = await insertIssue(stack, other)
  for (const action of ['resolve', 'ignore', 'reopen', 'unmerge']) {
    const answer = await asAgent('POST', `/issues/${foreign}/${action}`, action === 'resolve' ? { mode: 'now' } : {})
    t.equal(answer.status, 404, `${action} of another project's issue is not found`)
    t.equal(answer.body.code, 'issue_not_found')
  }
  t.equal((await asAgent('GET', `/issues/${foreign}/history`)).status, 404)
  const into = await asAgent('POST', `/issues/${issueId}/merge`, { into: foreign })
  t.equal(into.status, 404, 'merging into another project\'s issue is not found')
  const { rows } = await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM issue_history')
  t.equal(rows[0]!.n, '0', 'no refused request wrote a line')
  const { rows: issues } = await stack.db.query<{ triage: string; merged_into: string | null }>('SELECT triage, merged_into FROM issues WHERE id = ANY($1)', [[issueId, foreign]])
  t.same(issues, [{ triage: 'open', merged_into: null }, { triage: 'open', merged_into: null }])
  t.same(await history(issueId), [])
})

t.test('merge and unmerge: a merged issue refuses triage of its own until the merge is undone', async (t) => {
  const { stack, projectId, key, asAgent, history } = await ownerProject(t)
  const source = await insertIssue(stack, projectId, 'TypeError: a')
  const target = await insertIssue(stack, projectId, 'TypeError: b')
  const merged = await asAgent('POST', `/issues/${source}/merge`, { into: target, reason: 'same bug' })
  t.equal(merged.status, 200)
  t.match(merged.body.triage, { merged_into: { id: target, title: 'TypeError: b' } })
  const refused = await asAgent('POST', `/issues/${source}/resolve`, { mode: 'now' })
  t.equal(refused.status, 409)
  t.equal(refused.body.code, 'issue_merged')
  t.equal(refused.body.merged_into, target)
  const again = await asAgent('POST', `/issues/${source}/merge`, { into: target })
  t.equal(again.status, 409, 'a merged issue cannot be merged again')

  const undone = await asAgent('POST', `/issues/${source}/unmerge`)
  t.equal(undone.status, 200)
  t.equal((undone.body.triage as { merged_into: unknown }).merged_into, null)
  const notMerged = await asAgent('POST', `/issues/${source}/unmerge`)
  t.equal(notMerged.status, 409)
  t.equal(notMerged.body.code, 'not_merged')
  t.same((await history(source)).map((line) => line.action), ['unmerge', 'merged'])
  t.same((await history(target)).map((line) => line.action), ['unmerged', 'merge'])
  t.equal((await history(target))[1]!.actor.id, key.id)
})

t.test('bulk triage moves up to 100 issues in one transaction; one foreign id moves none', async (t) => {
  const { stack, projectId, asAgent, history } = await ownerProject(t)
  const [a, b, c] = [await insertIssue(stack, projectId, 'A'), await insertIssue(stack, projectId, 'B'), await insertIssue(stack, projectId, 'C')]
  await asAgent('POST', `/issues/${c}/merge`, { into: b })

  const resolved = await asAgent('POST', '/issues/triage', { issues: [a, b, c], action: 'resolve', mode: 'now', reason: 'release 2.1' })
  t.equal(resolved.status, 200)
  t.same((resolved.body.moved as Array<{ id: string }>).map((m) => m.id).sort(), [a, b].sort())
  t.same(resolved.body.merged, [c], 'a merged issue is left out and said so')
  const again = await asAgent('POST', '/issues/triage', { issues: [a], action: 'resolve', mode: 'now' })
  t.same(again.body, { moved: [], unchanged: [a], merged: [] })
  t.match((await history(a))[0], { action: 'resolve', reason: 'release 2.1', actor: { kind: 'agent' } })

  const other = (await stack.db.query<{ id: string }>(`INSERT INTO projects (name) VALUES ('Other') RETURNING id`)).rows[0]!.id
  const foreign = await insertIssue(stack, other)
  const mixed = await asAgent('POST', '/issues/triage', { issues: [a, b, foreign], action: 'reopen' })
  t.equal(mixed.status, 404)
  t.equal(mixed.body.code, 'issue_not_found')
  t.same(mixed.body.missing, [foreign])
  const { rows } = await stack.db.query<{ triage: string }>('SELECT triage FROM issues WHERE id = ANY($1)', [[a, b]])
  t.same(rows.map((r) => r.triage), ['resolved', 'resolved'], 'nothing was reopened')

  const ignored = await asAgent('POST', '/issues/triage', { issues: [a, b], action: 'ignore', more_users: 10 })
  t.same((ignored.body.moved as Array<{ to: string }>).map((m) => m.to), ['ignored', 'ignored'])
  const bad: Array<[unknown, string]> = [
    [{ issues: [], action: 'reopen' }, 'invalid_issues'],
    [{ issues: Array.from({ length: 101 }, () => a), action: 'reopen' }, 'invalid_issues'],
    [{ issues: ['nope'], action: 'reopen' }, 'invalid_issues'],
    [{ issues: [a], action: 'merge' }, 'invalid_action'],
    [{ issues: [a], action: 'resolve' }, 'invalid_mode'],
    [{ issues: [a], action: 'reopen', mode: 'now' }, 'unknown_field'],
  ]
  for (const [body, code] of bad) {
    const answer = await asAgent('POST', '/issues/triage', body)
    t.equal(answer.status, 400)
    t.equal(answer.body.code, code, JSON.stringify(body).slice(0, 60))
  }
})
