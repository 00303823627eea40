import t from 'tap'
import type { EntityManager } from '@mikro-orm/postgresql'
import { Investigation, InvestigationCitation, InvestigationOutcome } from '../../../services/investigator/store/entities.js'
import { MODEL_KEY, REPO, startHarness } from '../../helpers/investigation/investigation-harness.js'


for (const provider of ['anthropic', 'openai'] as const) {
  t.test(`over ${provider}'s wire format, each fixture bug ends in its one honest outcome`, async (t) => {
    const h = await startHarness(t, { provider })
    const app = await h.send('app', 2)
    const thirdParty = await h.send('third_party', 2)
    const notInRepo = await h.send('not_in_repo', 2)

    const appIssue = await h.settle(app)
    t.equal(appIssue.outcome, 'investigated', 'a bug in the app is found in its code')
    t.same([appIssue.status, appIssue.reason_code], ['needs_human', 'sandbox_template_missing'], 'and its fix, without a sandbox template, stops at once saying so')
    const em = h.orm.em.fork() as EntityManager
    const appRun = await em.findOneOrFail(Investigation, { issueId: app })
    t.equal(appRun.commitSha, h.commit, "the repository was read at the release's tagged commit")
    t.equal(appRun.repo, REPO)
    t.equal(appRun.trigger, 'auto')
    t.ok(appRun.turns >= 3 && appRun.inputTokens > 0 && appRun.outputTokens > 0 && appRun.durationMs > 0, 'turns, tokens and time are recorded')
    const citations = await em.find(InvestigationCitation, { investigationId: appRun.id })
    t.ok(citations.length >= 1, 'the answer cites lines')
    t.ok(citations.every((c) => c.path === h.fixture.bugs.app.expected.file), 'of the buggy file in the monorepo')
    t.match(citations[0]!.quote, /item\.price\.amount/, 'quoting the line that throws')
    const appOutcome = await em.findOneOrFail(InvestigationOutcome, { investigationId: appRun.id })
    t.ok(appOutcome.summary.length > 0 && appOutcome.chain.length > 0 && appOutcome.fix.length > 0, 'summary, chain and fix are kept')

    const tpIssue = await h.settle(thirdParty)
    t.equal(tpIssue.status, 'insight', 'a third-party script is named as the cause outside the code')
    const tpRun = await em.findOneOrFail(Investigation, { issueId: thirdParty })
    const tpOutcome = await em.findOneOrFail(InvestigationOutcome, { investigationId: tpRun.id })
    t.equal(tpOutcome.cause?.kind, 'third_party_script')
    t.match(tpOutcome.cause?.name, h.fixture.bugs.third_party.expected.thirdParty!)

    const note = await h.notInvestigated(notInRepo)
    t.equal(note.code, 'no_app_frames', 'frames that map to files absent from the repository are not investigated')
    t.match(note.message, /^no frame in your code: .*widget-kit\/src\/carousel\.ts.* not in shop-co\/shop/, 'naming the files it looked for')
    t.equal((await h.waitForStatus(notInRepo, ['new'])).status, 'new', 'the issue stays new')
    t.equal(await em.count(Investigation, { issueId: notInRepo }), 0, 'no run was spent on it')

    const bodies = h.models.turns.map((turn) => turn.rawBody).join('\n')
    for (const secret of [MODEL_KEY, h.token, h.stack.ingestKey]) t.notOk(bodies.includes(secret), 'no secret in any request body sent to the model')
    t.same(await h.violations(), [], 'the investigation invariants hold')
  })
}

t.test('an error one user saw stays new and is never investigated', async (t) => {
  const h = await startHarness(t)
  const issue = await h.send('app', 1)
  await new Promise((resolve) => setTimeout(resolve, 1500))
  const { rows } = await h.stack.db.query<{ status: string }>('SELECT status FROM issues WHERE id = $1', [issue])
  t.equal(rows[0]!.status, 'new')
  t.equal(await (h.orm.em.fork() as EntityManager).count(Investigation, { issueId: issue }), 0, 'no investigation row')
  t.equal(h.models.turns.length, 0, 'the model was never asked')
  await h.send('app', 1)
  t.equal((await h.settle(issue)).outcome, 'investigated', 'the second user makes it qualify')
  await h.send('app', 2)
  await new Promise((resolve) => setTimeout(resolve, 1500))
  t.equal(await (h.orm.em.fork() as EntityManager).count(Investigation, { issueId: issue }), 1, 'more events of the same episode start nothing new')
  t.same(await h.violations(), [])
})
