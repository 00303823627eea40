import t from 'tap'
import { approveNewProject, DashboardClient } from '../../helpers/dashboard.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'

/** An issue as the grouper leaves it. */
async function insertIssue(stack: TestStack, projectId: string, title: string): Promise<string> {
  const { rows } = await stack.db.query<{ id: string }>(
    `INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, culprit, first_seen, last_seen, event_count, user_count, session_count)
     VALUES ($1, 'error', gen_random_uuid()::text, 4, 'new', $2, 'totalOf (src/cart.ts:6)', now(), now(), 3, 1, 1) RETURNING id`,
    [projectId, title],
  )
  return rows[0]!.id
}

/** What a triage post may change: the issue's triage columns, its merge, and its history. */
async function snapshot(stack: TestStack, issueIds: readonly string[]): Promise<unknown> {
  const { rows } = await stack.db.query(
    `SELECT id, triage, resolved_at, resolved_mode, ignored_until, ignored_until_events, merged_into, event_count,
            (SELECT count(*)::int FROM issue_history h WHERE h.issue_id = i.id) AS history
       FROM issues i WHERE id = ANY($1::uuid[]) ORDER BY id`,
    [[...issueIds]],
  )
  return rows
}

t.test('triage posts of the dashboard change only the owner’s issues, from the dashboard itself, with the form token', async (t) => {
  const stack = await startTestStack(t)
  const owner = new DashboardClient(stack.baseUrl)
  await owner.signUp('owner@example.test')
  const projectId = await approveNewProject(stack, owner, 'Shop')
  const [a, b, c] = [await insertIssue(stack, projectId, 'TypeError: a'), await insertIssue(stack, projectId, 'TypeError: b'), await insertIssue(stack, projectId, 'TypeError: c')]
  const other = new DashboardClient(stack.baseUrl)
  await other.signUp('other@example.test')
  const otherProject = await approveNewProject(stack, other, 'Elsewhere')
  const theirs = await insertIssue(stack, otherProject, 'TypeError: theirs')
  const issue = (id: string, project = projectId): string => `/projects/${project}/issues/${id}`

  // The owner merges c into b, so that an undo has something to probe.
  await owner.get(issue(c))
  const merged = await owner.post(`${issue(c)}/merge`, { into: `${stack.baseUrl}${issue(b)}` })
  t.equal(merged.status, 303)
  t.equal(merged.location, issue(c))
  const all = [a, b, c, theirs]
  const before = await snapshot(stack, all)

  const posts: Array<[string, Record<string, string>]> = [
    [`${issue(a)}/triage`, { action: 'resolve_now' }],
    [`${issue(a)}/merge`, { into: b }],
    [`${issue(c)}/unmerge`, {}],
    [`/projects/${projectId}/issues/bulk`, { action: 'ignore', ignore: 'forever', issue: a }],
    [`/projects/${projectId}/issues/bulk`, { action: 'merge', issue: a }],
  ]
  for (const [path, form] of posts) {
    const crossSite = await owner.post(path, form, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })
    t.equal(crossSite.status, 403, `a cross-site post to ${path} is refused`)
    const wrongToken = await owner.request(path, { form: { ...form, csrf: 'x'.repeat(43) } })
    t.equal(wrongToken.status, 403, `a post to ${path} with a wrong form token is refused`)
    // Another signed-in person, with their own valid token, on the owner's project.
    await other.get(`/projects/${otherProject}/issues`)
    t.equal((await other.post(path, form)).status, 403, `another account's post to ${path} is refused`)
  }
  t.same(await snapshot(stack, all), before, 'none of those changed an issue or its history')

  // The other person names the owner's issues under their own project: not found, or left out.
  await other.get(`/projects/${otherProject}/issues`)
  t.equal((await other.post(`${issue(a, otherProject)}/triage`, { action: 'resolve_now' })).status, 404)
  t.equal((await other.post(`${issue(c, otherProject)}/unmerge`, {})).status, 404)
  t.equal((await other.post(`${issue(theirs, otherProject)}/merge`, { into: a })).status, 409, 'merging into another project’s issue is refused')
  const bulk = await other.post(`/projects/${otherProject}/issues/bulk`, { action: 'resolve_now', issue: a })
  t.equal(bulk.status, 303)
  t.match(bulk.location, /changed=0$/, 'the bulk changed none of the ids that are not of the project')
  const bulkMerge = await other.request(`/projects/${otherProject}/issues/bulk`, { form: { csrf: other.csrf, action: 'merge' } })
  t.equal(bulkMerge.status, 400, 'nothing ticked is refused')
  const mergeAcross = await fetchForm(other, `/projects/${otherProject}/issues/bulk`, [['action', 'merge'], ['issue', theirs], ['issue', a]])
  t.equal(mergeAcross.status, 409, 'a bulk merge with an issue of another project is refused')
  t.equal((await other.post(`${issue(theirs, otherProject)}/merge`, { into: `${stack.baseUrl}${issue(a)}` })).status, 409, 'an address of another project is refused')
  t.same(await snapshot(stack, all), before, 'and nothing of the owner’s changed')

  // The owner's own post does change it, as the person.
  await owner.get(issue(a))
  const resolved = await owner.post(`${issue(a)}/triage`, { action: 'resolve_now', reason: 'shipped <b>the guard</b>' })
  t.equal(resolved.status, 303)
  const { rows } = await stack.db.query<{ triage: string; actor_kind: string; actor_label: string; reason: string }>(
    `SELECT i.triage, h.actor_kind, h.actor_label, h.reason FROM issues i JOIN issue_history h ON h.issue_id = i.id WHERE i.id = $1`,
    [a],
  )
  t.match(rows, [{ triage: 'resolved', actor_kind: 'person', actor_label: 'owner@example.test', reason: 'shipped <b>the guard</b>' }])
  const page = await owner.get(issue(a))
  t.match(page.text, /shipped &lt;b&gt;the guard&lt;\/b&gt;/, 'the reason is shown as text')
})

/** A form post with repeated fields (the bulk form's ticked issues), with the client's cookies and token. */
async function fetchForm(client: DashboardClient, path: string, fields: Array<[string, string]>): Promise<{ status: number }> {
  const body = new URLSearchParams([['csrf', client.csrf], ...fields])
  const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  const response = await fetch(`${client.baseUrl}${path}`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: body.toString(), redirect: 'manual' })
  await response.text()
  return { status: response.status }
}
