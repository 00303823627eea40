// Assigning an issue to a member, through each door: the issue page's form, the project API (a
// session and an api key) and the tool server. An assignee who is not a member is refused and
// nothing changes; "me" is the signed-in person, and an api key, which is the project's, has none.
import t from 'tap'
import { DashboardClient, approveNewProject } from '../../helpers/dashboard.js'
import { callTool, connectAgent } from '../../helpers/mcp.js'
import { insertIssue, inviteLink, joinWith, userId } from '../../helpers/members.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'

async function assigned(stack: TestStack, issueId: string): Promise<{ assignee_id: string | null; history: Array<{ action: string; actor_label: string; detail: Record<string, unknown> }> }> {
  const { rows } = await stack.db.query<{ assignee_id: string | null }>('SELECT assignee_id FROM issues WHERE id = $1', [issueId])
  const history = await stack.db.query<{ action: string; actor_label: string; detail: Record<string, unknown> }>(`SELECT action, actor_label, detail FROM issue_history WHERE issue_id = $1 AND action IN ('assign', 'unassign') ORDER BY id`, [issueId])
  return { assignee_id: rows[0]!.assignee_id, history: history.rows }
}

/** A JSON request with the client's session cookie, as the dashboard's own script would send it. */
async function api(client: DashboardClient, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  const response = await fetch(`${client.baseUrl}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { cookie, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: response.status, json: (await response.json()) as Record<string, unknown> }
}

t.test('a member assigns an issue to themself on the issue page, finds it under Assigned to me, and unassigns it; a non-member is refused', async (t) => {
  const stack = await startTestStack(t)
  const owner = new DashboardClient(stack.baseUrl)
  await owner.signUp('owner@example.test')
  const projectId = await approveNewProject(stack, owner, 'Shop')
  const issueId = await insertIssue(stack, projectId, 'TypeError: cart')
  const member = await joinWith(stack, await inviteLink(owner, projectId), 'member@example.test')
  const memberId = await userId(stack, 'member@example.test')
  const other = new DashboardClient(stack.baseUrl)
  await other.signUp('other@example.test')
  const issuePath = `/projects/${projectId}/issues/${issueId}`

  const page = await member.get(issuePath)
  t.match(page.text, `<option value="${memberId}">member@example.test</option>`, 'the select lists the members')
  const done = await member.post(`${issuePath}/assign`, { assignee: memberId })
  t.equal(done.status, 303)
  t.equal(done.location, issuePath)
  t.match(await assigned(stack, issueId), { assignee_id: memberId, history: [{ action: 'assign', actor_label: 'member@example.test', detail: { from: null, to: memberId, from_label: null, to_label: 'member@example.test' } }] })
  t.match((await member.get(issuePath)).text, /Assigned to <span class="assignee">member@example\.test<\/span>/, 'the history says who it went to')
  t.match((await member.get(issuePath)).text, 'now: member@example.test')

  const mine = await member.get(`/projects/${projectId}/issues?assignee=me`)
  t.match(mine.text, 'TypeError: cart', 'Assigned to me lists it for the member')
  t.match(mine.text, '<td class="assignee">member@example.test</td>')
  t.match((await owner.get(`/projects/${projectId}/issues?assignee=me`)).text, 'No issues match these filters.', 'and not for the owner')
  t.match((await owner.get(`/projects/${projectId}/issues?assignee=none`)).text, 'No issues match these filters.')

  await owner.get(issuePath)
  const before = await assigned(stack, issueId)
  const refused = await owner.post(`${issuePath}/assign`, { assignee: await userId(stack, 'other@example.test') })
  t.equal(refused.status, 409)
  t.match(refused.text, 'not a member')
  t.equal((await owner.post(`${issuePath}/assign`, { assignee: 'not-a-uuid' })).status, 409)
  t.same(await assigned(stack, issueId), before, 'nothing changed')

  const cleared = await owner.post(`${issuePath}/assign`, { assignee: '' })
  t.equal(cleared.status, 303)
  t.match(await assigned(stack, issueId), { assignee_id: null, history: [{ action: 'assign' }, { action: 'unassign', actor_label: 'owner@example.test', detail: { from: memberId, to: null, from_label: 'member@example.test' } }] })
  t.match((await member.get(`/projects/${projectId}/issues?assignee=none`)).text, 'TypeError: cart')
})

t.test('the project API and the tool server assign to members only; "me" is a session’s person, and an api key has none', async (t) => {
  const stack = await startTestStack(t)
  const owner = new DashboardClient(stack.baseUrl)
  await owner.signUp('owner@example.test')
  const ownerId = await userId(stack, 'owner@example.test')
  // A project made by setting owner_id alone (as seeds and other pages do): its owner is a member.
  await stack.db.query('UPDATE projects SET owner_id = $1 WHERE id = $2', [ownerId, stack.projectId])
  const projectId = stack.projectId
  const [a, b] = [await insertIssue(stack, projectId, 'TypeError: a'), await insertIssue(stack, projectId, 'TypeError: b')]
  const member = await joinWith(stack, await inviteLink(owner, projectId), 'member@example.test')
  const memberId = await userId(stack, 'member@example.test')
  const strangerId = (await stack.db.query<{ id: string }>(`INSERT INTO users (email, display_name) VALUES ('stranger@example.test', '') RETURNING id`)).rows[0]!.id
  const base = `/api/v1/projects/${projectId}/issues`

  // A session: "me" is the member.
  const byMe = await api(member, `${base}/${a}/assign`, { user_id: 'me' })
  t.equal(byMe.status, 200)
  t.match(byMe.json, { issue_id: a, changed: true, assignee: { id: memberId, label: 'member@example.test' } })
  t.match((await api(member, `${base}?assignee=me`)).json, { issues: [{ id: a, assignee: { id: memberId } }] })
  t.match((await api(member, `${base}/${a}`)).json, { issue: { assignee: { id: memberId, label: 'member@example.test' } } })
  t.match((await api(member, `${base}?assignee=none`)).json, { issues: [{ id: b, assignee: null }] })
  t.match((await api(member, `${base}?assignee=someone`)).json, { code: 'invalid_filter', field: 'assignee' })
  const before = await assigned(stack, a)
  t.match(await api(member, `${base}/${a}/assign`, { user_id: strangerId }), { status: 409, json: { code: 'assignee_not_member' } })
  t.match(await api(member, `${base}/${a}/assign`, { user_id: 42 }), { status: 400, json: { code: 'invalid_assignee' } })
  t.match(await api(member, `${base}/${a}/assign`, {}), { status: 400, json: { code: 'invalid_assignee' } })
  t.same(await assigned(stack, a), before, 'refusals changed nothing')

  // An api key: the project's, so no "me".
  const key = await stack.mint('api')
  const keyed = async (path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
    const response = await fetch(`${stack.baseUrl}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
    return { status: response.status, json: (await response.json()) as Record<string, unknown> }
  }
  t.match(await keyed(`${base}?assignee=me`), { status: 400, json: { code: 'assignee_me_needs_person' } })
  t.match(await keyed(`${base}/${b}/assign`, { user_id: 'me' }), { status: 400, json: { code: 'assignee_me_needs_person' } })
  t.match(await keyed(`${base}/${b}/assign`, { user_id: ownerId }), { status: 200, json: { changed: true, assignee: { id: ownerId } } })
  t.match((await keyed(`${base}?assignee=${ownerId}`)).json, { issues: [{ id: b }] })
  t.match((await stack.db.query(`SELECT actor_kind FROM issue_history WHERE issue_id = $1 AND action = 'assign'`, [b])).rows, [{ actor_kind: 'agent' }])

  // The tool server.
  const agent = await connectAgent(t, stack.baseUrl, key)
  const listed = await callTool(agent, 'list_issues', { assignee: memberId })
  t.equal(listed.isError, false)
  t.match(listed.body, { issues: [{ id: a, assignee_id: memberId }] })
  t.match(await callTool(agent, 'list_issues', { assignee: 'me' }), { isError: true, body: { code: 'assignee_me_needs_person' } })
  t.match(await callTool(agent, 'assign_issue', { issue_id: b, user_id: strangerId }), { isError: true, body: { code: 'assignee_not_member' } })
  t.match(await callTool(agent, 'assign_issue', { issue_id: b, user_id: 'me' }), { isError: true, body: { code: 'assignee_me_needs_person' } })
  t.match((await callTool(agent, 'assign_issue', { issue_id: b, user_id: memberId })).body, { issue_id: b, changed: true, assignee_id: memberId })
  t.match((await callTool(agent, 'assign_issue', { issue_id: b, user_id: null })).body, { changed: true, assignee_id: null })
  t.match(await assigned(stack, b), { assignee_id: null, history: [{ action: 'assign' }, { action: 'assign' }, { action: 'unassign' }] })
})
