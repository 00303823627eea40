// Members and roles on the dashboard: a member reads and triages but cannot change settings, keys,
// members or chat; a removed member's next request is refused with their session still open; the
// last owner stays; and the web probes (other accounts' ids, cross-site posts, wrong form tokens)
// hold for a member as for an owner.
import t from 'tap'
import { approveNewProject, DashboardClient, registerSetupSession } from '../../helpers/dashboard.js'
import { insertIssue, inviteLink, joinWith, userId } from '../../helpers/members.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'

/** What an owner-only form may change: the project's settings, keys, members and invitations. */
async function ownerState(stack: TestStack, projectId: string): Promise<unknown> {
  const q = async (sql: string): Promise<unknown[]> => (await stack.db.query(sql, [projectId])).rows
  return {
    project: await q('SELECT codehost_repo, fix_limited_drafts, timezone, friction_auto_investigate, chat_webhook_url FROM projects WHERE id = $1'),
    keys: await q('SELECT id, revoked_at FROM api_keys WHERE project_id = $1 ORDER BY id'),
    members: await q('SELECT user_id, role FROM project_members WHERE project_id = $1 ORDER BY user_id'),
    invitations: await q('SELECT id, revoked_at FROM project_invitations WHERE project_id = $1 ORDER BY id'),
  }
}

t.test('a member reads and triages the project, and is refused every owner’s page and form with nothing changed', async (t) => {
  const stack = await startTestStack(t, { env: { SVC_INVITATION_TTL_DAYS: '2' } })
  const owner = new DashboardClient(stack.baseUrl)
  await owner.signUp('owner@example.test')
  const projectId = await approveNewProject(stack, owner, 'Shop')
  const issueId = await insertIssue(stack, projectId, 'TypeError: cart')
  const member = await joinWith(stack, await inviteLink(owner, projectId), 'member@example.test')
  const { rows: ttl } = await stack.db.query<{ days: number }>('SELECT round(extract(epoch FROM expires_at - created_at) / 86400)::int AS days FROM project_invitations')
  t.same(ttl, [{ days: 2 }], 'SVC_INVITATION_TTL_DAYS sets how long a link works')
  const base = `/projects/${projectId}`

  for (const path of [base, `${base}/issues`, `${base}/issues/${issueId}`, `${base}/recordings`, `${base}/known-problems`, `${base}/digests`, `${base}/members`]) {
    t.equal((await member.get(path)).status, 200, `a member opens ${path}`)
  }
  const list = await member.get('/')
  t.match(list.text, 'Shop')
  t.match(list.text, '· member ·', 'the project list shows the role')
  const membersPage = await member.get(`${base}/members`)
  t.match(membersPage.text, 'owner@example.test')
  t.notMatch(membersPage.text, 'Create invitation link', 'a member sees no owner’s forms')
  t.notMatch((await member.get(base)).text, '/settings/codehost', 'a member gets no Settings tab')
  const api = await member.request(`/api/v1/projects/${projectId}/issues`)
  t.equal(api.status, 200, 'a member reads the project API with their session')

  for (const path of [`${base}/settings/codehost`, `${base}/settings/api-keys`]) {
    const page = await member.get(path)
    t.equal(page.status, 403, `a member is refused ${path}`)
    t.match(page.text, 'Only an owner of this project')
  }

  const ownerId = await userId(stack, 'owner@example.test')
  await owner.get(`${base}/settings/api-keys`)
  await owner.post(`${base}/settings/api-keys`, { kind: 'api', label: 'mine' })
  const keyId = (await stack.db.query<{ id: string }>(`SELECT id FROM api_keys WHERE project_id = $1 AND label = 'mine'`, [projectId])).rows[0]!.id
  const before = await ownerState(stack, projectId)
  await member.get(`${base}/members`)
  const refused: Array<[string, Record<string, string>]> = [
    [`${base}/settings/codehost`, { codehost_repo: 'acme/shop' }],
    [`${base}/settings/fixes`, { limited_drafts: 'on' }],
    [`${base}/settings/timezone`, { timezone: 'Europe/Paris' }],
    [`${base}/settings/api-keys`, { kind: 'api', label: 'theirs' }],
    [`${base}/settings/api-keys/${keyId}/revoke`, {}],
    [`${base}/known-problems/auto-investigate`, { on: '1' }],
    [`${base}/members/invitations`, { role: 'owner' }],
    [`${base}/members/${ownerId}/remove`, {}],
    [`${base}/members/${ownerId}/role`, { role: 'member' }],
    [`${base}/members/${await userId(stack, 'member@example.test')}/role`, { role: 'owner' }],
  ]
  for (const [path, form] of refused) t.equal((await member.post(path, form)).status, 403, `a member's post to ${path} is refused`)
  // Chat and keys also come through setup approval: connecting the project is an owner's.
  const { pollId } = await registerSetupSession(stack, { projectName: 'Shop', agentName: 'agent', gitRemote: '' })
  await member.get(`/setup/${pollId}`)
  t.equal((await member.post(`/setup/${pollId}/approve`, { project: projectId })).status, 403, 'a member cannot approve a setup (keys, chat) for the project')
  t.same(await ownerState(stack, projectId), before, 'none of those changed the settings, keys, members or invitations')

  await member.get(`${base}/issues/${issueId}`)
  const resolved = await member.post(`${base}/issues/${issueId}/triage`, { action: 'resolve_now' })
  t.equal(resolved.status, 303, 'a member triages')
  const { rows } = await stack.db.query('SELECT i.triage, h.actor_label FROM issues i JOIN issue_history h ON h.issue_id = i.id WHERE i.id = $1', [issueId])
  t.match(rows, [{ triage: 'resolved', actor_label: 'member@example.test' }])
})

t.test('a removed member’s next request is refused although their session is still open', async (t) => {
  const stack = await startTestStack(t)
  const owner = new DashboardClient(stack.baseUrl)
  await owner.signUp('owner@example.test')
  const projectId = await approveNewProject(stack, owner, 'Shop')
  const issueId = await insertIssue(stack, projectId, 'TypeError: cart')
  const member = await joinWith(stack, await inviteLink(owner, projectId), 'member@example.test')
  const memberId = await userId(stack, 'member@example.test')
  const base = `/projects/${projectId}`
  await member.get(`${base}/issues/${issueId}`) // the member's form token, before the removal

  await owner.get(`${base}/members`)
  const removed = await owner.post(`${base}/members/${memberId}/remove`, {})
  t.equal(removed.status, 303)
  t.equal(removed.location, `${base}/members?done=removed`)
  t.equal((await stack.db.query('SELECT count(*)::int AS n FROM web_sessions WHERE user_id = $1', [memberId])).rows[0]!.n > 0, true, 'the session is still open')
  t.equal((await member.get('/')).status, 200, 'the member is still signed in')
  t.equal((await member.get(base)).status, 404, 'the project page is not found')
  t.equal((await member.get(`${base}/issues/${issueId}`)).status, 404)
  t.equal((await member.post(`${base}/issues/${issueId}/triage`, { action: 'resolve_now' })).status, 403, 'a triage post is refused')
  t.equal((await member.request(`/api/v1/projects/${projectId}/issues`)).status, 404, 'the project API answers not found')
  t.notMatch((await member.get('/')).text, 'Shop', 'the project is gone from their list')
  t.match((await stack.db.query('SELECT triage FROM issues WHERE id = $1', [issueId])).rows, [{ triage: 'open' }])
})

t.test('the last owner can neither leave, nor be removed, nor be made a member; with a second owner they can', async (t) => {
  const stack = await startTestStack(t)
  const owner = new DashboardClient(stack.baseUrl)
  await owner.signUp('owner@example.test')
  const projectId = await approveNewProject(stack, owner, 'Shop')
  const ownerId = await userId(stack, 'owner@example.test')
  const base = `/projects/${projectId}`
  await owner.get(`${base}/members`)
  const before = await ownerState(stack, projectId)
  const leave = await owner.post(`${base}/members/leave`, {})
  t.equal(leave.status, 409)
  t.match(leave.text, 'last owner')
  t.equal((await owner.post(`${base}/members/${ownerId}/remove`, {})).status, 409)
  const demote = await owner.post(`${base}/members/${ownerId}/role`, { role: 'member' })
  t.equal(demote.status, 409)
  t.match(demote.text, 'at least one owner')
  t.same(await ownerState(stack, projectId), before, 'nothing changed')

  const second = await joinWith(stack, await inviteLink(owner, projectId, 'owner'), 'second@example.test')
  const secondId = await userId(stack, 'second@example.test')
  await second.get(`${base}/members`)
  t.equal((await second.post(`${base}/members/${ownerId}/role`, { role: 'member' })).status, 303, 'an owner makes another owner a member')
  t.equal((await second.post(`${base}/members/${ownerId}/role`, { role: 'member' })).location, `${base}/members?done=unchanged`)
  t.equal((await second.post(`${base}/members/${secondId}/remove`, {})).status, 409, 'now the second is the last owner')
  await owner.get(`${base}/members`)
  const left = await owner.post(`${base}/members/leave`, {})
  t.equal(left.status, 303, 'a member leaves')
  t.equal(left.location, '/')
  t.equal((await owner.get(base)).status, 404)
  t.match((await stack.db.query('SELECT user_id, role FROM project_members WHERE project_id = $1', [projectId])).rows, [{ user_id: secondId, role: 'owner' }])
})

t.test('the web probes hold for a member: other accounts’ ids, cross-site posts and wrong form tokens', async (t) => {
  const stack = await startTestStack(t)
  const owner = new DashboardClient(stack.baseUrl)
  await owner.signUp('owner@example.test')
  const projectId = await approveNewProject(stack, owner, 'Shop')
  const issueId = await insertIssue(stack, projectId, 'TypeError: cart')
  const member = await joinWith(stack, await inviteLink(owner, projectId), 'member@example.test')
  const other = new DashboardClient(stack.baseUrl)
  await other.signUp('other@example.test')
  const otherProject = await approveNewProject(stack, other, 'Elsewhere')
  const theirIssue = await insertIssue(stack, otherProject, 'TypeError: theirs')
  const state = async (): Promise<unknown> => ({
    mine: await ownerState(stack, projectId),
    theirs: await ownerState(stack, otherProject),
    issues: (await stack.db.query('SELECT id, triage, assignee_id FROM issues ORDER BY id')).rows,
  })
  const before = await state()

  for (const path of [`/projects/${otherProject}`, `/projects/${otherProject}/issues/${theirIssue}`, `/projects/${otherProject}/members`, `/projects/${otherProject}/settings/codehost`, `/projects/${projectId}/issues/${theirIssue}`]) {
    t.equal((await member.get(path)).status, 404, `a member gets not found for ${path}`)
  }
  await member.get(`/projects/${projectId}/issues/${issueId}`)
  t.equal((await member.post(`/projects/${otherProject}/issues/${theirIssue}/triage`, { action: 'resolve_now' })).status, 403, 'another account’s project is refused')
  t.equal((await member.post(`/projects/${otherProject}/members/leave`, {})).status, 403)
  t.equal((await member.post(`/projects/${projectId}/issues/${theirIssue}/triage`, { action: 'resolve_now' })).status, 404, 'another project’s issue under the member’s project is not found')
  const posts: Array<[string, Record<string, string>]> = [
    [`/projects/${projectId}/issues/${issueId}/triage`, { action: 'resolve_now' }],
    [`/projects/${projectId}/issues/${issueId}/assign`, { assignee: 'me' }],
    [`/projects/${projectId}/members/leave`, {}],
  ]
  for (const [path, form] of posts) {
    t.equal((await member.post(path, form, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).status, 403, `a cross-site post to ${path} is refused`)
    t.equal((await member.request(path, { form: { ...form, csrf: owner.csrf } })).status, 403, `a post to ${path} with another person's form token is refused`)
  }
  t.same(await state(), before, 'nothing changed anywhere')
})
