import t, { type Test } from 'tap'
import { readFix } from '../../../services/investigator/read/fix.js'
import { INVESTIGATOR_ENTITIES } from '../../../services/investigator/store/entities.js'
import { createOrm } from '../../../shared/db/orm.js'
import { approveNewProject, DashboardClient } from '../../helpers/dashboard.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'
import { seededByHand } from '../../helpers/suite-invariants.js'

const SHA = '3f2c1b0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b'

/** An issue as the grouper leaves it. */
async function insertIssue(stack: TestStack, projectId: string, kind = 'error'): Promise<string> {
  const { rows } = await stack.db.query<{ id: string }>(
    `INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, culprit, first_seen, last_seen, event_count, user_count, session_count)
     VALUES ($1, $2, gen_random_uuid()::text, 3, 'investigated', 'Error: Cart <n> has no items', 'totalOf (src/cart.ts:6)', now(), now(), 12, 3, 4) RETURNING id`,
    [projectId, kind],
  )
  return rows[0]!.id
}

/** Episode 1 found the cause in the code. */
async function insertInvestigated(stack: TestStack, issueId: string, projectId: string): Promise<string> {
  const { rows } = await stack.db.query<{ id: string }>(
    `INSERT INTO investigations (issue_id, project_id, episode, trigger, state, attempts, lease_until, repo, repo_url, commit_sha, finished_at)
     VALUES ($1, $2, 1, 'auto', 'investigated', 1, now(), 'acme/shop', 'https://github.com/acme/shop', $3, now()) RETURNING id`,
    [issueId, projectId, SHA],
  )
  await stack.db.query(`INSERT INTO investigation_outcomes (investigation_id, kind, summary) VALUES ($1, 'investigated', 'checkout() totals a cart never loaded.')`, [rows[0]!.id])
  return rows[0]!.id
}

/** A signed-in owner with a project, and a POST of the JSON action as the tool server would send it (with the owner's cookie). */
async function ownerProject(t: Test) {
  const stack = await startTestStack(t)
  // Rows below are written by hand to show pages, outside the fix lifecycle: the suite's invariant check skips this database.
  await seededByHand(stack.db)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('owner@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')
  const { rows } = await stack.db.query<{ id: string }>(`SELECT id FROM users WHERE email = 'owner@example.test'`)
  const action = async (path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> => {
    const answer = await client.request(path, { method: 'POST', headers })
    return { status: answer.status, body: JSON.parse(answer.text) as Record<string, unknown> }
  }
  return { stack, client, projectId, userId: rows[0]!.id, action }
}

t.test('the JSON read answers the fix view with the issue, and null for an issue without a fix', async (t) => {
  const { stack, client, projectId } = await ownerProject(t)
  const orm = await createOrm(stack.db, INVESTIGATOR_ENTITIES)
  t.teardown(() => orm.close())
  const issueId = await insertIssue(stack, projectId)
  const investigationId = await insertInvestigated(stack, issueId, projectId)
  const { rows } = await stack.db.query<{ id: string }>(
    `INSERT INTO fixes (investigation_id, issue_id, project_id, trigger, state, attempts, lease_until, branch, delivery, pr_number, pr_url, head_sha, ci_state, review, summary, finished_at)
     VALUES ($1, $2, $3, 'manual', 'pr_created', 1, now(), 'svc/fix-1', 'ready', 42, 'https://github.com/acme/shop/pull/42', $4, 'none', 'approved', 'Load the cart first.', now()) RETURNING id`,
    [investigationId, issueId, projectId, SHA],
  )
  await stack.db.query(`INSERT INTO fix_evidence (fix_id, attempt, seq, tier, phase, command, exit_code, met, excerpt) VALUES ($1, 1, 0, 'E2', 'fix', 'npm test', 0, true, 'ok 1')`, [rows[0]!.id])

  const read = await client.get(`/api/v1/projects/${projectId}/issues/${issueId}`)
  t.equal(read.status, 200)
  const body = JSON.parse(read.text) as { issue: { id: string }; investigation: unknown; fix: Record<string, unknown> }
  t.equal(body.issue.id, issueId)
  t.same(body.fix, JSON.parse(JSON.stringify(await readFix(orm, issueId))), 'the fix view the page shows')
  t.match(body.fix, {
    state: 'pr_created',
    trigger: 'manual',
    pullRequest: { number: 42, url: 'https://github.com/acme/shop/pull/42', delivery: 'ready', draft: false, headSha: SHA },
    ci: { state: 'none' },
    review: { verdict: 'approved' },
    stop: null,
    evidence: [{ tier: 'E2', phase: 'fix', command: 'npm test', exitCode: 0, timedOut: false, met: true, infraError: '', excerpt: 'ok 1' }],
  })
  const none = JSON.parse((await client.get(`/api/v1/projects/${projectId}/issues/${await insertIssue(stack, projectId)}`)).text) as { fix: unknown; investigation: unknown }
  t.equal(none.fix, null)
  t.equal(none.investigation, null)
})

t.test('the JSON action starts a fix (202), answers 409 in_flight while one runs, and investigates first without a cause', async (t) => {
  const { stack, projectId, userId, action } = await ownerProject(t)
  const issueId = await insertIssue(stack, projectId)
  await insertInvestigated(stack, issueId, projectId)
  const path = `/api/v1/projects/${projectId}/issues/${issueId}/fix`

  t.same(await action(path), { status: 202, body: { result: 'fix_started' } })
  const { rows } = await stack.db.query<{ id: string; trigger: string; requested_by: string }>('SELECT id, trigger, requested_by FROM fixes WHERE issue_id = $1', [issueId])
  t.match(rows, [{ trigger: 'manual', requested_by: userId }])
  const entries = (await stack.redis.xrange(stack.keys.fixes, '-', '+')) as Array<[string, string[]]>
  t.same(entries.map(([, fields]) => fields), [['fix', rows[0]!.id]])

  const again = await action(path)
  t.equal(again.status, 409)
  t.same(again.body, { code: 'in_flight', message: 'An investigation or a fix of this issue is already in progress, so nothing was started. Wait for it to end (read the issue for its state), then ask again.' })
  t.equal(await stack.redis.xlen(stack.keys.fixes), 1, 'nothing more was dispatched')

  const fresh = await insertIssue(stack, projectId)
  t.same(await action(`/api/v1/projects/${projectId}/issues/${fresh}/fix`), { status: 202, body: { result: 'investigation_started' } })
  t.equal(await stack.redis.xlen(stack.keys.investigations), 1)
  t.equal((await action(`/api/v1/projects/${projectId}/issues/${fresh}/fix`)).body.code, 'in_flight', 'the investigation it started is in flight')
})

t.test('the JSON action refuses bad ids, other projects, other kinds, signed-out and cross-site requests with stable codes', async (t) => {
  const { stack, client, projectId, action } = await ownerProject(t)
  const issueId = await insertIssue(stack, projectId)
  await insertInvestigated(stack, issueId, projectId)
  const path = `/api/v1/projects/${projectId}/issues/${issueId}/fix`

  t.same(await action(`/api/v1/projects/not-a-uuid/issues/${issueId}/fix`), {
    status: 400,
    body: { code: 'invalid_id', field: 'project_id', message: 'The id named in field is not a UUID. Copy the project and issue ids from the dashboard address; do not retry with the same one.' },
  })
  t.match(await action(`/api/v1/projects/${projectId}/issues/42/fix`), { status: 400, body: { code: 'invalid_id', field: 'issue_id' } })
  t.match(await client.get(`/api/v1/projects/${projectId}/issues/42`), { status: 400 }, 'the read checks ids the same way')

  const otherProject = await approveNewProject(stack, client, 'Blog')
  t.match(await action(`/api/v1/projects/${otherProject}/issues/${issueId}/fix`), { status: 404, body: { code: 'issue_not_found' } })
  t.match(await action(`/api/v1/projects/00000000-0000-4000-8000-000000000000/issues/${issueId}/fix`), { status: 404, body: { code: 'project_not_found' } })
  t.match(await action(`/api/v1/projects/${projectId}/issues/${await insertIssue(stack, projectId, 'message')}/fix`), { status: 409, body: { code: 'not_an_error' } })
  t.match(await action(path, { origin: 'https://evil.example' }), { status: 403, body: { code: 'cross_site_request' } })
  t.match(await action(path, { 'sec-fetch-site': 'same-site' }), { status: 403, body: { code: 'cross_site_request' } })

  const signedOut = await fetch(`${stack.baseUrl}${path}`, { method: 'POST' })
  t.equal(signedOut.status, 401)
  t.equal(((await signedOut.json()) as { code: string }).code, 'not_signed_in')

  const other = new DashboardClient(stack.baseUrl)
  await other.signUp('other@example.test')
  const refused = await other.request(path, { method: 'POST' })
  t.equal(refused.status, 404, "another person's project is not found, as for the read")
  t.equal(JSON.parse(refused.text).code, 'project_not_found')
  t.equal((await stack.db.query('SELECT 1 FROM fixes')).rowCount, 0, 'no refused request started anything')
  t.equal(await stack.redis.xlen(stack.keys.fixes), 0)

  t.match(await action(path, { origin: stack.baseUrl, 'sec-fetch-site': 'same-origin' }), { status: 202, body: { result: 'fix_started' } }, 'a post from the dashboard itself is let through')
})
