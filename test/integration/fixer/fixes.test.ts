import t from 'tap'
import type { EntityManager } from '@mikro-orm/postgresql'
import { Fix, FixEvidence } from '../../../services/investigator/store/fix-entities.js'
import { serviceBrain } from '../../helpers/investigation/fixer-brain.js'
import { MODEL_KEY, REPO, startHarness, type Harness } from '../../helpers/investigation/investigation-harness.js'
import { waitFor } from '../../helpers/stack.js'

async function fixOf(h: Harness, issueId: string): Promise<Fix> {
  return (h.orm.em.fork() as EntityManager).findOneOrFail(Fix, { issueId }, { orderBy: { createdAt: 'desc' } })
}

async function evidenceOf(h: Harness, fix: Fix): Promise<Array<Pick<FixEvidence, 'tier' | 'phase' | 'met' | 'exitCode'>>> {
  const rows = await (h.orm.em.fork() as EntityManager).find(FixEvidence, { fixId: fix.id, attempt: fix.attempts }, { orderBy: { seq: 'asc' } })
  return rows.map((row) => ({ tier: row.tier, phase: row.phase, met: row.met, exitCode: row.exitCode }))
}

t.test('an automatic run proves its fix in the sandbox and opens a draft pull request with the evidence, even when CI passes', async (t) => {
  const h = await startHarness(t, { sandbox: true, script: serviceBrain(), env: { INVESTIGATION_LEASE_SECONDS: '4' } })
  const issue = await h.send('app', 2)
  const settled = await h.settle(issue, 120_000)
  t.equal(settled.outcome, 'investigated')
  t.equal(settled.status, 'pr_draft', 'the issue ends with a draft pull request')
  const fix = await fixOf(h, issue)
  t.same([fix.trigger, fix.delivery, fix.testFile], ['auto', 'draft', 'apps/shop/test/cart-gift.test.ts'])
  t.same(await evidenceOf(h, fix), [
    { tier: 'setup', phase: 'baseline', met: true, exitCode: 0 },
    { tier: 'E1', phase: 'baseline', met: true, exitCode: 0 },
    { tier: 'E2', phase: 'baseline', met: true, exitCode: 1 },
    { tier: 'setup', phase: 'fix', met: true, exitCode: 0 },
    { tier: 'E0', phase: 'fix', met: true, exitCode: 0 },
    { tier: 'E1', phase: 'fix', met: true, exitCode: 0 },
    { tier: 'E2', phase: 'fix', met: true, exitCode: 0 },
  ], 'every check executed: the test red on the baseline and green with the fix, the suite and build green')
  const [pr] = h.github.pulls(REPO)
  t.ok(pr, 'one pull request')
  t.same([pr!.number, pr!.draft, pr!.state, pr!.head, pr!.base], [fix.prNumber, true, 'open', fix.branch, 'main'])
  t.match(pr!.body, /## Root cause[\s\S]*## The change[\s\S]*## Evidence \(executed\)/, 'the description shows the cause, the change and the evidence')
  t.match(pr!.body, /E2 regression test \| baseline \| `node --import tsx --test --test-reporter=tap 'apps\/shop\/test\/cart-gift.test.ts'` \| 1 \| yes/)
  t.equal(h.github.comments(REPO, pr!.number).length, 1, 'the evidence is commented')
  t.match(fix.diff, /\+\s+total \+= \(item\.price\?\.amount \?\? 0\) \* item\.quantity/, 'the diff is the fix')

  h.github.setCi(REPO, fix.headSha, { checkRuns: [{ name: 'test', status: 'completed', conclusion: 'success', html_url: 'https://ci.example/1' }] })
  const read = await waitFor(async () => ((await fixOf(h, issue)).ciState === 'success' ? true : undefined), 20_000, 200)
  t.ok(read, "the repository CI's result is read back; the pull request stays a draft")
  t.equal(h.github.pulls(REPO)[0]!.draft, true)
  const bodies = h.models.turns.map((turn) => turn.rawBody).join('\n')
  for (const secret of [MODEL_KEY, h.token]) t.notOk(bodies.includes(secret), 'no secret in any model request')
  t.same(await h.violations(), [])
})
