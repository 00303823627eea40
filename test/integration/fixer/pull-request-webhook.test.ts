import { randomUUID } from 'node:crypto'
import { Webhooks } from '@octokit/webhooks'
import t, { type Test } from 'tap'
import { followedState, seedDeliveredFix, type DeliveredFix } from '../../helpers/investigation/fix-pull-request.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'

const SECRET = 'whsec-test-0123456789abcdef'
const REPO = 'acme/shop'

/** A GitHub-shaped pull_request payload for pull request number of repo. */
function pullRequestPayload(repo: string, number: number, action: string, merged: boolean): Record<string, unknown> {
  const [owner, name] = repo.split('/')
  const at = new Date('2026-11-28T10:00:00Z').toISOString()
  return {
    action,
    number,
    pull_request: {
      number,
      html_url: `https://github.com/${repo}/pull/${number}`,
      state: action === 'closed' ? 'closed' : 'open',
      draft: false,
      merged,
      merged_at: merged ? at : null,
      closed_at: action === 'closed' ? at : null,
      merge_commit_sha: merged ? 'a'.repeat(40) : null,
      head: { ref: 'svc/fix-1', sha: '3f2c1b0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b' },
      base: { ref: 'main' },
    },
    repository: { full_name: repo, name, owner: { login: owner } },
    sender: { login: 'octocat' },
    installation: { id: 1 },
  }
}

interface Sent {
  status: number
  body: Record<string, unknown>
}

/** Posts body as the code host does: signed with secret (unless signature is given), with the event and delivery headers. */
async function deliver(stack: TestStack, payload: unknown, headers: { event?: string; delivery?: string | null; signature?: string | null; secret?: string } = {}): Promise<Sent> {
  const text = JSON.stringify(payload)
  const signature = headers.signature === undefined ? await new Webhooks({ secret: headers.secret ?? SECRET }).sign(text) : headers.signature
  const sent: Record<string, string> = { 'content-type': 'application/json', 'x-github-event': headers.event ?? 'pull_request', 'user-agent': 'GitHub-Hookshot/test' }
  if (signature !== null) sent['x-hub-signature-256'] = signature
  if (headers.delivery !== null) sent['x-github-delivery'] = headers.delivery ?? randomUUID()
  const answer = await fetch(`${stack.baseUrl}/api/v1/codehost/webhook`, { method: 'POST', headers: sent, body: text })
  const raw = await answer.text()
  return { status: answer.status, body: raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>) }
}

async function delivered(t: Test, options: { fixRepo?: string } = {}): Promise<{ stack: TestStack; fix: DeliveredFix }> {
  const stack = await startTestStack(t, { env: { CODEHOST_WEBHOOK_SECRET: SECRET } })
  const fix = await seedDeliveredFix(stack.db, stack.projectId, REPO, 12, options)
  await stack.db.query(`INSERT INTO releases (project_id, name, first_seen) VALUES ($1, 'shop@1.4.0', now())`, [stack.projectId])
  return { stack, fix }
}

t.test('a merged fix pull request ends the episode merged and resolves the issue in the next release, once', async (t) => {
  const { stack, fix } = await delivered(t)
  const delivery = randomUUID()
  const merged = await deliver(stack, pullRequestPayload(REPO, 12, 'closed', true), { delivery })
  t.same(merged, { status: 200, body: { status: 'merged' } })
  const after = await followedState(stack.db, fix)
  t.match(after.fix, { state: 'merged', pr_state: 'merged', pr_merged_at: new Date('2026-11-28T10:00:00Z'), pr_merge_sha: 'a'.repeat(40) })
  t.match(after.issue, { triage: 'resolved', resolved_mode: 'next_release', status: 'pr_created' }, 'resolved in the next release; the pipeline status stays the delivery')
  t.match(after.history, [
    { actor_kind: 'service', actor_id: 'pull-request-follower', actor_label: 'the service', action: 'resolve', from_state: 'open', to_state: 'resolved', reason: 'fix pull request #12 merged', detail: { mode: 'next_release', release: 'shop@1.4.0' } },
    { actor_kind: 'service', actor_id: 'pull-request-follower', action: 'pull_request', from_state: 'pr_created', to_state: 'merged', reason: 'fix pull request #12 merged', detail: { number: 12, merge_sha: 'a'.repeat(40) } },
  ])
  t.equal(after.history.length, 2)

  const replayed = await deliver(stack, pullRequestPayload(REPO, 12, 'closed', true), { delivery })
  t.match(replayed, { status: 409, body: { code: 'delivery_replayed' } }, 'the same delivery id again is refused')
  t.same(await followedState(stack.db, fix), after, 'and changes nothing')

  const again = await deliver(stack, pullRequestPayload(REPO, 12, 'closed', true))
  t.same(again, { status: 200, body: { status: 'unchanged' } }, 'the same end seen again (a redelivery under a new id) is taken')
  const twice = await followedState(stack.db, fix)
  t.same({ ...twice, deliveries: after.deliveries }, after, 'and changes nothing but the deliveries taken')
})

t.test('a fix pull request closed without merging ends the episode closed and puts the issue back to investigated, triage untouched', async (t) => {
  const { stack, fix } = await delivered(t)
  const closed = await deliver(stack, pullRequestPayload(REPO, 12, 'closed', false))
  t.same(closed, { status: 200, body: { status: 'closed' } })
  const after = await followedState(stack.db, fix)
  t.match(after.fix, { state: 'closed', pr_state: 'closed', pr_merged_at: null, pr_closed_at: new Date('2026-11-28T10:00:00Z'), pr_merge_sha: '' })
  t.match(after.issue, { status: 'investigated', triage: 'open', resolved_at: null })
  t.match(after.history, [{ actor_kind: 'service', action: 'pull_request', from_state: 'pr_created', to_state: 'closed', reason: 'fix pull request #12 closed without merging', detail: { number: 12 } }])
  t.equal(after.history.length, 1)
})

t.test('a delivery with a bad or missing signature is refused with 401 and changes nothing', async (t) => {
  const { stack, fix } = await delivered(t)
  const before = await followedState(stack.db, fix)
  const payload = pullRequestPayload(REPO, 12, 'closed', true)
  t.match(await deliver(stack, payload, { secret: 'another-secret' }), { status: 401, body: { code: 'signature_invalid' } }, 'signed with another secret')
  t.match(await deliver(stack, payload, { signature: null }), { status: 401, body: { code: 'signature_invalid' } }, 'unsigned')
  t.match(await deliver(stack, payload, { signature: 'sha256=' + '0'.repeat(64) }), { status: 401, body: { code: 'signature_invalid' } }, 'a made-up signature')
  const tampered = await new Webhooks({ secret: SECRET }).sign(JSON.stringify(pullRequestPayload(REPO, 12, 'closed', false)))
  t.match(await deliver(stack, payload, { signature: tampered }), { status: 401, body: { code: 'signature_invalid' } }, 'the signature of another body')
  t.same(await followedState(stack.db, fix), before, 'nothing changed')
})

t.test('a delivery for a repository no project is attached to, or not the fix\'s, is refused and changes nothing', async (t) => {
  const { stack, fix } = await delivered(t, { fixRepo: 'acme/old-shop' })
  const before = await followedState(stack.db, fix)
  t.match(await deliver(stack, pullRequestPayload('someone/else', 12, 'closed', true)), { status: 422, body: { code: 'repository_unknown' } })
  t.match(await deliver(stack, pullRequestPayload(REPO, 12, 'closed', true)), { status: 422, body: { code: 'repository_mismatch' } }, 'the fix of #12 was delivered to another repository')
  t.same(await followedState(stack.db, fix), before, 'nothing changed, not even a delivery taken')
})

t.test('other events are acknowledged and ignored; a delivery without its id is refused', async (t) => {
  const { stack, fix } = await delivered(t)
  const before = await followedState(stack.db, fix)
  t.same(await deliver(stack, pullRequestPayload(REPO, 12, 'opened', false)), { status: 202, body: { status: 'ignored' } }, 'pull_request opened')
  t.same(await deliver(stack, { zen: 'Keep it logically awesome.', hook_id: 1 }, { event: 'ping' }), { status: 202, body: { status: 'ignored' } }, 'ping')
  t.match(await deliver(stack, pullRequestPayload(REPO, 12, 'closed', true), { delivery: null }), { status: 400, body: { code: 'delivery_missing' } }, 'no X-GitHub-Delivery')
  t.match(await deliver(stack, pullRequestPayload(REPO, 12, 'closed', true), { delivery: 'not a delivery id' }), { status: 400, body: { code: 'delivery_missing' } }, 'not an id')
  t.same(await deliver(stack, pullRequestPayload(REPO, 99, 'closed', true)), { status: 200, body: { status: 'not_followed' } }, 'a pull request the service did not deliver')
  const after = await followedState(stack.db, fix)
  t.same({ ...after, deliveries: before.deliveries }, before, 'the fix and its issue are untouched')
})

t.test('without CODEHOST_WEBHOOK_SECRET every delivery is refused', async (t) => {
  const stack = await startTestStack(t)
  t.match(await deliver(stack, pullRequestPayload(REPO, 12, 'closed', true)), { status: 404, body: { code: 'webhook_not_configured' } })
})

t.test('an earlier fix of the issue that delivered to the same pull request ends with it, under one history line', async (t) => {
  const { stack, fix } = await delivered(t)
  const { rows } = await stack.db.query<{ id: string }>(
    `INSERT INTO fixes (investigation_id, issue_id, project_id, trigger, state, attempts, lease_until, repo, branch, delivery, pr_number, pr_url, head_sha, review, finished_at, created_at)
     SELECT investigation_id, issue_id, project_id, 'auto', 'pr_draft', 1, now(), repo, branch, 'draft', pr_number, pr_url, head_sha, 'approved', now(), now() - interval '30 minutes'
       FROM fixes WHERE id = $1 RETURNING id`,
    [fix.fixId],
  )
  const earlier = { issueId: fix.issueId, fixId: rows[0]!.id }
  t.same(await deliver(stack, pullRequestPayload(REPO, 12, 'closed', false)), { status: 200, body: { status: 'closed' } })
  const after = await followedState(stack.db, fix)
  t.match(after.fix, { state: 'closed', pr_state: 'closed' })
  t.match((await followedState(stack.db, earlier)).fix, { state: 'closed', pr_state: 'closed', pr_closed_at: new Date('2026-11-28T10:00:00Z') }, 'the earlier fix ended with it')
  t.match(after.issue, { status: 'investigated' }, 'the issue still showed that pull request: back to investigated')
  t.equal(after.history.length, 1, 'one history line')
})
