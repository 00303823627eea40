import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { pollPullRequests } from '../../../services/investigator/pull-requests/poll.js'
import { INVESTIGATOR_ENTITIES } from '../../../services/investigator/store/entities.js'
import { createOrm } from '../../../shared/db/orm.js'
import { loadPlugin } from '../../../shared/plugins/loader.js'
import { createLogger } from '../../../shared/log.js'
import { followedState, seedDeliveredFix } from '../../helpers/investigation/fix-pull-request.js'
import { addCommit, makeRepository } from '../../helpers/loopback/git-repository.js'
import { startGithubLoopback } from '../../helpers/loopback/github-loopback.js'
import { startTestStack } from '../../helpers/stack.js'

const MINUTE = 60 * 1000

/** The loopback GitHub with a repository, a fix branch and its pull request open, and codehost-github on a token that may read them. */
async function openPullRequest(t: Test) {
  const github = await startGithubLoopback()
  const scratch = await mkdtemp(join(tmpdir(), 'svc-pr-poller-'))
  t.teardown(async () => {
    await github.close()
    await rm(scratch, { recursive: true, force: true })
  })
  const src = await mkdtemp(join(scratch, 'src-'))
  await writeFile(join(src, 'cart.js'), 'export const total = (cart) => cart.items.length\n')
  const { bareDir } = await makeRepository(src, { parentDir: scratch })
  await writeFile(join(src, 'cart.js'), 'export const total = (cart) => (cart.items ?? []).length\n')
  await addCommit(bareDir, src, { branch: 'svc/fix-1' })
  const repo = `acme-${randomBytes(3).toString('hex')}/shop`
  github.serveGit(repo, bareDir)
  const token = `github_pat_${randomBytes(24).toString('hex')}`
  github.acceptToken(token, [repo])
  const codehost = await loadPlugin('codehost', 'codehost-github', { token, apiUrl: github.apiUrl, webUrl: github.webUrl }, { log: createLogger('silent') })
  const opened = await codehost.pullRequests!.open(repo, '', { branch: 'svc/fix-1', base: 'main', title: 'Load the cart first', body: 'Fix', draft: false })
  return { github, codehost, repo, number: opened.number }
}

t.test('the poller finds a delivered pull request merged on the code host and ends its fix merged, once', async (t) => {
  const { github, codehost, repo, number } = await openPullRequest(t)
  const stack = await startTestStack(t, { ingress: false })
  const orm = await createOrm(stack.db, INVESTIGATOR_ENTITIES)
  t.teardown(() => orm.close())
  const fix = await seedDeliveredFix(stack.db, stack.projectId, repo, number)
  const options = { orm, db: stack.db, codehost, polling: { everyMs: 5 * MINUTE, perPass: 20 } }

  const start = new Date()
  t.equal(await pollPullRequests(options, start), 0, 'open: nothing ended')
  const open = await followedState(stack.db, fix)
  t.match(open.fix, { state: 'pr_created', pr_state: 'open', pr_checked_at: start })
  t.equal(await pollPullRequests(options, new Date(start.getTime() + MINUTE)), 0, 'read again only after the interval')
  t.same(await followedState(stack.db, fix), open, 'not read within the interval')

  const merged = await github.closePull(repo, number, { merged: true })
  t.equal(await pollPullRequests(options, new Date(start.getTime() + 6 * MINUTE)), 1, 'merged: one ended')
  const after = await followedState(stack.db, fix)
  t.match(after.fix, { state: 'merged', pr_state: 'merged', pr_merged_at: new Date(String(merged!.merged_at)), pr_merge_sha: merged!.merge_commit_sha })
  t.match(after.issue, { triage: 'resolved', resolved_mode: 'next_release' })
  t.match(after.history, [
    { actor_id: 'pull-request-follower', action: 'resolve', to_state: 'resolved', reason: `fix pull request #${number} merged` },
    { actor_id: 'pull-request-follower', action: 'pull_request', to_state: 'merged' },
  ])

  t.equal(await pollPullRequests(options, new Date(start.getTime() + 60 * MINUTE)), 0, 'an ended pull request is not read again')
  t.same(await followedState(stack.db, fix), after, 'and nothing changes')
})

t.test('the poller reads at most its share a pass, the least recently read first, and a closed one puts the issue back', async (t) => {
  const { github, codehost, repo, number } = await openPullRequest(t)
  const stack = await startTestStack(t, { ingress: false })
  const orm = await createOrm(stack.db, INVESTIGATOR_ENTITIES)
  t.teardown(() => orm.close())
  const fix = await seedDeliveredFix(stack.db, stack.projectId, repo, number)
  // Another delivered fix read a minute ago: the never-read one goes first.
  const other = await seedDeliveredFix(stack.db, stack.projectId, repo, number + 100)
  const start = new Date()
  await stack.db.query(`UPDATE fixes SET pr_checked_at = $2, pr_state = 'open' WHERE id = $1`, [other.fixId, new Date(start.getTime() - 10 * MINUTE)])
  await github.closePull(repo, number)
  const options = { orm, db: stack.db, codehost, polling: { everyMs: 5 * MINUTE, perPass: 1 } }

  t.equal(await pollPullRequests(options, start), 1)
  const after = await followedState(stack.db, fix)
  t.match(after.fix, { state: 'closed', pr_state: 'closed', pr_merged_at: null })
  t.match(after.issue, { status: 'investigated', triage: 'open' })
  t.match(after.history, [{ action: 'pull_request', to_state: 'closed', reason: `fix pull request #${number} closed without merging` }])
  t.match((await followedState(stack.db, other)).fix, { state: 'pr_created', pr_checked_at: new Date(start.getTime() - 10 * MINUTE) }, 'one a pass: the other waits')

  t.equal(await pollPullRequests(options, new Date(start.getTime() + MINUTE)), 0)
  t.match((await followedState(stack.db, other)).fix, { state: 'pr_created', pr_checked_at: new Date(start.getTime() + MINUTE) }, 'the next pass reads it (the loopback has no such pull request: to the back of the queue)')
})

t.test('without a code host that reads pull requests, or with the poller off, a pass reads nothing', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const orm = await createOrm(stack.db, INVESTIGATOR_ENTITIES)
  t.teardown(() => orm.close())
  const fix = await seedDeliveredFix(stack.db, stack.projectId, 'acme/shop', 7)
  const before = await followedState(stack.db, fix)
  t.equal(await pollPullRequests({ orm, db: stack.db, codehost: undefined, polling: { everyMs: 5 * MINUTE, perPass: 20 } }), 0)
  t.same(await followedState(stack.db, fix), before)
})

t.test('a pull request an agent linked is followed too: merged resolves its issue in the next release; one of another repository is not followed', async (t) => {
  const { github, codehost, repo, number } = await openPullRequest(t)
  const stack = await startTestStack(t, { ingress: false })
  const orm = await createOrm(stack.db, INVESTIGATOR_ENTITIES)
  t.teardown(() => orm.close())
  await stack.db.query('UPDATE projects SET codehost_repo = $2 WHERE id = $1', [stack.projectId, repo])
  const { rows } = await stack.db.query<{ id: string }>(
    `INSERT INTO issues (project_id, kind, fingerprint, grouping_version, title, first_seen, last_seen) VALUES ($1, 'error', 'linked', 4, 'Error: linked', now(), now()) RETURNING id`,
    [stack.projectId],
  )
  const issueId = rows[0]!.id
  const link = async (url: string) =>
    (await stack.db.query<{ id: string }>(`INSERT INTO issue_pull_requests (project_id, issue_id, url, key_id) VALUES ($1, $2, $3, 'k1') RETURNING id`, [stack.projectId, issueId, url])).rows[0]!.id
  const ours = await link(`https://github.com/${repo}/pull/${number}`)
  const elsewhere = await link(`https://github.com/someone/else/pull/${number}`)
  const state = async (id: string) => (await stack.db.query<{ pr_state: string }>('SELECT pr_state FROM issue_pull_requests WHERE id = $1', [id])).rows[0]!.pr_state
  const options = { orm, db: stack.db, codehost, polling: { everyMs: 5 * MINUTE, perPass: 20 } }
  const start = new Date()
  t.equal(await pollPullRequests(options, start), 0)
  t.equal(await state(ours), 'open')
  t.equal(await state(elsewhere), 'unfollowed', 'another repository is not read')
  await github.closePull(repo, number, { merged: true })
  t.equal(await pollPullRequests(options, new Date(start.getTime() + 6 * MINUTE)), 1)
  t.equal(await state(ours), 'merged')
  const { rows: issue } = await stack.db.query<{ triage: string; resolved_mode: string }>('SELECT triage, resolved_mode FROM issues WHERE id = $1', [issueId])
  t.same(issue[0], { triage: 'resolved', resolved_mode: 'next_release' })
  const { rows: history } = await stack.db.query<{ action: string; reason: string }>('SELECT action, reason FROM issue_history WHERE issue_id = $1 ORDER BY id', [issueId])
  t.same(history.map((h) => h.action), ['resolve', 'pull_request'])
  t.equal(history[0]!.reason, `linked pull request #${number} merged`)
})
