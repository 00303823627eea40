import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import t, { type Test } from 'tap'
import type { EntityManager } from '@mikro-orm/postgresql'
import { requestFix } from '../../../services/investigator/commands.js'
import { Fix } from '../../../services/investigator/store/fix-entities.js'
import { serviceBrain, type FixerOptions } from '../../helpers/investigation/fixer-brain.js'
import { addCommit } from '../../helpers/loopback/git-repository.js'
import { REPO, startHarness, type Harness, type HarnessOptions } from '../../helpers/investigation/investigation-harness.js'
import type { Script } from '../../helpers/loopback/model-server.js'

// A dozen fixes, each building and testing the fixture in three sandboxes: well over the runner's default two minutes a file.
t.setTimeout(10 * 60_000)

const OWNER = '00000000-0000-4000-8000-00000000f1c5'

async function fixOf(h: Harness, issueId: string): Promise<Fix> {
  return (h.orm.em.fork() as EntityManager).findOneOrFail(Fix, { issueId }, { orderBy: { createdAt: 'desc' } })
}

/** A person presses "Fix this" on the issue. */
async function pressFix(h: Harness, issueId: string): Promise<string> {
  await h.stack.db.query("INSERT INTO users (id, email, display_name) VALUES ($1, 'owner@shop.example', 'Owner') ON CONFLICT DO NOTHING", [OWNER])
  return requestFix(h.orm, h.stack.redis, h.stack.keys, { issueId, projectId: h.stack.projectId, trigger: 'manual', userId: OWNER, leaseMs: h.stack.config.investigations.leaseMs })
}

async function fixRun(t: Test, fix: FixerOptions, options: HarnessOptions = {}, review: { veto?: boolean } = {}) {
  const h = await startHarness(t, { sandbox: true, script: serviceBrain({ fix, review }), ...options })
  const issue = await h.send('app', 2)
  const settled = await h.settle(issue, 120_000)
  return { h, issue, settled, fix: await fixOf(h, issue) }
}

const stops: Array<[string, string, FixerOptions, { veto?: boolean }?]> = [
  ['tests_failed', 'a fix that breaks a test that passed without it (E1)', { breaksOther: true }],
  ['repro_not_achievable', 'a declared test that already passes without the fix (not a reproduction)', { alreadyPasses: true }],
  ['repro_not_achievable', 'no regression test at all', { noTest: true }],
  ['verification_failed', 'a change that leaves a syntax error', { brokenBuild: true }],
  ['review_vetoed', 'the independent review refusing the diff', {}, { veto: true }],
  ['budget_exhausted', 'a model that never submits', { never: true }],
]

for (const [code, what, fix, review] of stops) {
  t.test(`${what} stops with ${code} and opens no pull request`, async (t) => {
    const { h, settled, fix: row } = await fixRun(t, fix, {}, review)
    t.equal(settled.outcome, 'investigated')
    t.same([settled.status, settled.reason_code], ['needs_human', code])
    t.ok(row.remediation.length > 10 && row.reasonMessage.length > 10, 'with a message and what to do')
    t.same(h.github.pulls(REPO), [], 'no pull request')
    if (code === 'tests_failed') t.match(row.reasonMessage, /formats cents as the currency/, 'naming the test it broke')
    t.same(await h.violations(), [])
  })
}

t.test('a project that opted in gets a limited draft, marked not verified, when only E2 is missing', async (t) => {
  const h = await startHarness(t, { sandbox: true, script: serviceBrain({ fix: { alreadyPasses: true } }) })
  await h.stack.db.query('UPDATE projects SET fix_limited_drafts = true WHERE id = $1', [h.stack.projectId])
  const issue = await h.send('app', 2)
  t.equal((await h.settle(issue, 120_000)).status, 'pr_draft')
  const fix = await fixOf(h, issue)
  t.equal(fix.delivery, 'limited_draft')
  const [pr] = h.github.pulls(REPO)
  t.equal(pr!.draft, true)
  t.match(pr!.body, /^> \*\*Not verified\.\*\*/, 'the description says plainly that it is not verified')
  t.same(await h.violations(), [])
})

t.test('a sandbox command that hangs or floods is cut off, and the fix still goes on', async (t) => {
  for (const fix of [{ hang: true }, { flood: true }]) {
    const { h, settled } = await fixRun(t, fix, { env: { SVC_SANDBOX_TOOL_SECONDS: '2' } })
    t.equal(settled.status, 'pr_draft', `${Object.keys(fix)[0]}: delivered`)
    t.same(await h.violations(), [])
  }
})

t.test('a token that may read but not push stops with codehost_cannot_push', async (t) => {
  const h = await startHarness(t, { sandbox: true, script: serviceBrain() })
  h.github.acceptToken(h.token, [REPO], { write: false })
  const issue = await h.send('app', 2)
  t.same((await h.settle(issue, 120_000)).reason_code, 'codehost_cannot_push')
  t.same(h.github.pulls(REPO), [])
  t.same(await h.violations(), [])
})

t.test('without a usable sandbox template every fix stops at startup', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bad-template-'))
  await writeFile(join(dir, 'template.json'), JSON.stringify({ install: 'exit 3', build: 'true', test: 'true', testFile: 'true {file}' }))
  const failing = await fixRun(t, {}, { env: { SVC_SANDBOX_JAVASCRIPT_TEMPLATE: dir } })
  t.same([failing.settled.status, failing.settled.reason_code], ['needs_human', 'sandbox_unavailable'], 'an install that fails is not evidence: the sandbox is unavailable')
  const missing = await fixRun(t, {}, { env: { SVC_SANDBOX_JAVASCRIPT_TEMPLATE: join(dir, 'nothing-here') } })
  t.same([missing.settled.status, missing.settled.reason_code], ['needs_human', 'sandbox_template_missing'])
  t.match(missing.fix.reasonMessage, /SVC_SANDBOX_JAVASCRIPT_TEMPLATE/)
})

t.test('a person-started fix opens ready for review; a second run updates the same pull request; a person\'s commits are never overwritten', async (t) => {
  const h = await startHarness(t, { sandbox: true, script: serviceBrain() })
  const issue = await h.send('app', 1)
  t.equal(await pressFix(h, issue), 'investigation_started', 'no root cause yet: an investigation first')
  t.equal((await h.settle(issue, 120_000)).status, 'pr_created', 'ready for review')
  const first = await fixOf(h, issue)
  t.same([first.trigger, first.delivery, first.requestedBy], ['manual', 'ready', OWNER])
  t.equal(h.github.pulls(REPO)[0]!.draft, false)

  t.equal(await pressFix(h, issue), 'fix_started', 'a second run on the same issue')
  const second = await h.settle(issue, 120_000)
  t.equal(second.status, 'pr_created')
  const again = await fixOf(h, issue)
  t.not(again.id, first.id)
  t.equal(again.prNumber, first.prNumber, 'the same pull request, its branch updated')
  t.equal(h.github.pulls(REPO).length, 1, 'never a second pull request')
  t.equal(h.github.comments(REPO, first.prNumber!).length, 2, 'each run comments its evidence')

  // Someone pushes their own commit onto the fix branch: the next run must not overwrite it.
  await addCommit(h.bareDir, h.fixture.repoDir, { branch: again.branch })
  t.equal(await pressFix(h, issue), 'fix_started')
  const third = await h.settle(issue, 120_000)
  t.same([third.status, third.reason_code], ['needs_human', 'pr_exists'])
  t.same(await h.violations(), [])
})

t.test('access to the repository withdrawn between the investigation and its fix stops the fix with repo_access_denied', async (t) => {
  const brain = serviceBrain()
  let withdraw = (): void => undefined
  // As the investigation submits its answer, the token loses the repository.
  const script: Script = (turn, index) => {
    const step = brain(turn, index)
    if (turn.tools.includes('submit_answer') && step.toolCalls?.some((call) => call.name === 'submit_answer')) withdraw()
    return step
  }
  const h = await startHarness(t, { sandbox: true, script })
  withdraw = () => h.github.acceptToken(h.token, [])
  const issue = await h.send('app', 2)
  const settled = await h.settle(issue, 120_000)
  t.equal(settled.outcome, 'investigated')
  t.same([settled.status, settled.reason_code], ['needs_human', 'repo_access_denied'])
  t.same(h.github.pulls(REPO), [])
  t.same(await h.violations(), [])
})

t.test("a template that does not fit the project stops with template_mismatch, saying what to set, never blaming the sandbox", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-mismatched-template-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  // The shipped template's detection over prepared dependencies: the fixture's test script runs npm workspaces, no runner it knows.
  const detecting = join(dir, 'detecting')
  // A template whose runner reports no test at all: the suite runs and says nothing.
  const silent = join(dir, 'silent')
  await mkdir(detecting)
  await mkdir(silent)
  await writeFile(join(detecting, 'template.json'), JSON.stringify({ detect: 'javascript', install: 'true', nodeModules: resolve('node_modules') }))
  await writeFile(join(silent, 'template.json'), JSON.stringify({ install: 'true', build: 'true', test: 'echo "no test files found"', testFile: 'node --import tsx --test --test-reporter=tap {file}', nodeModules: resolve('node_modules') }))
  for (const [template, message] of [
    [detecting, /test script is "npm test --workspaces".*vitest, jest, mocha, node:test.*SVC_SANDBOX_JAVASCRIPT_TEMPLATE/],
    [silent, /reported no test results on the untouched baseline \(exit 0\).*no test files found/],
  ] as const) {
    const { h, settled, fix } = await fixRun(t, {}, { env: { SVC_SANDBOX_JAVASCRIPT_TEMPLATE: template } })
    t.same([settled.status, settled.reason_code], ['needs_human', 'template_mismatch'], template)
    t.match(fix.reasonMessage, message)
    t.match(fix.remediation, /SVC_SANDBOX_JAVASCRIPT_TEMPLATE/)
    t.same(h.github.pulls(REPO), [], 'no pull request')
  }
})
