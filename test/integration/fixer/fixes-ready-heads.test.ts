import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import type { EntityManager } from '@mikro-orm/postgresql'
import { requestFix } from '../../../services/investigator/commands.js'
import { Fix } from '../../../services/investigator/store/fix-entities.js'
import { childEnv } from '../../helpers/env.js'
import { serviceBrain } from '../../helpers/investigation/fixer-brain.js'
import { REPO, startHarness, workerEnv, type Harness } from '../../helpers/investigation/investigation-harness.js'
import { SVC } from '../../helpers/processes.js'
import { waitFor } from '../../helpers/stack.js'

// Six fixes, each building and testing the fixture in three sandboxes.
t.setTimeout(10 * 60_000)

const OWNER = '00000000-0000-4000-8000-00000000f1c6'
const FINAL = ['pr_draft', 'pr_created', 'needs_human']

async function fixes(h: Harness, issueId: string): Promise<Fix[]> {
  return (h.orm.em.fork() as EntityManager).find(Fix, { issueId }, { orderBy: { createdAt: 'asc' } })
}

/** Waits until the issue has n fixes and the last has ended; answers them, oldest first. */
async function fixesEnded(h: Harness, issueId: string, n: number): Promise<Fix[]> {
  return waitFor(async () => {
    const all = await fixes(h, issueId)
    return all.length === n && FINAL.includes(all[n - 1]!.state) ? all : undefined
  }, 180_000, 200)
}

/** A person presses "Fix this" on the issue. */
async function pressFix(h: Harness, issueId: string): Promise<string> {
  await h.stack.db.query("INSERT INTO users (id, email, display_name) VALUES ($1, 'owner@shop.example', 'Owner') ON CONFLICT DO NOTHING", [OWNER])
  return requestFix(h.orm, h.stack.redis, h.stack.keys, { issueId, projectId: h.stack.projectId, trigger: 'manual', userId: OWNER, leaseMs: h.stack.config.investigations.leaseMs })
}

/** The same error comes back in a newer release: a regression, investigated and fixed by an automatic run. */
async function regress(h: Harness, release: string): Promise<void> {
  await h.uploadMaps(release)
  await h.send('app', 2, { release })
}

/** `svc check-investigations` against the harness's database and code host: its exit code and output. */
async function checkInvestigations(h: Harness): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [SVC, 'check-investigations'], { env: childEnv({ ...workerEnv(h), LOG_LEVEL: 'warn' }) })
    return { code: 0, output: stdout }
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string }
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` }
  }
}

t.test('a ready pull request that an automatic run updates goes back to draft before the push, and says why', async (t) => {
  // The person's run reproduces and verifies; the regression's run finds no reproducing test and,
  // the project having opted in, delivers a limited draft (no E2): a head that may not stand ready.
  let brain = serviceBrain()
  const h = await startHarness(t, { sandbox: true, script: (turn, index) => brain(turn, index) })
  const issue = await h.send('app', 1)
  t.equal(await pressFix(h, issue), 'investigation_started')
  const [ready] = await fixesEnded(h, issue, 1)
  t.same([ready!.trigger, ready!.delivery, ready!.prReady], ['manual', 'ready', true], 'a person-started fix opened ready for review')
  t.equal(h.github.pulls(REPO)[0]!.draft, false)

  brain = serviceBrain({ fix: { alreadyPasses: true } })
  await h.stack.db.query('UPDATE projects SET fix_limited_drafts = true WHERE id = $1', [h.stack.projectId])
  await regress(h, 'shop@1.5.0')
  const [, automatic] = await fixesEnded(h, issue, 2)
  t.same([automatic!.trigger, automatic!.state, automatic!.delivery], ['auto', 'pr_draft', 'limited_draft'], 'the regression was fixed by an automatic run, without a reproduction')
  t.equal(automatic!.prNumber, ready!.prNumber, 'onto the same pull request')
  t.not(automatic!.headSha, ready!.headSha, 'with a new head')
  const [pr] = h.github.pulls(REPO)
  t.equal(pr!.draft, true, 'the pull request is a draft again')
  t.equal(automatic!.prReady, false, 'and the fix recorded it as one')
  const comments = h.github.comments(REPO, pr!.number)
  const why = comments.find((c) => c.startsWith('**Back to draft.**'))
  t.ok(why, 'a comment says why')
  t.match(why, ready!.headSha.slice(0, 12), 'naming the verified head it was ready on')
  t.match(why, automatic!.headSha.slice(0, 12), 'and the head that may not stand ready')
  t.match(why, /no test that fails without it could be run \(E2\)/, 'and why it may not')
  t.ok(comments.indexOf(why!) < comments.length - 1, 'before the new evidence')
  t.same(await h.violations(), [])
  const check = await checkInvestigations(h)
  t.equal(check.code, 0, check.output)
  t.match(check.output, /pull requests: 1 open one\(s\) read from the code host/)

  // The state the bug left (ready on an unverified head) is what the checker must catch, whoever made it.
  h.github.markReady(REPO, pr!.number)
  const caught = await checkInvestigations(h)
  t.equal(caught.code, 1, 'svc check-investigations fails')
  t.match(caught.output, `ready for review on ${automatic!.headSha.slice(0, 12)}, which lacks E2 red on the baseline`, 'naming the head and what it lacks')
})

t.test('an automatic draft made ready by a person, then a regression: back to draft, and ready again only when a person verifies it', async (t) => {
  const h = await startHarness(t, { sandbox: true, script: serviceBrain() })
  const issue = await h.send('app', 2)
  const [automatic] = await fixesEnded(h, issue, 1)
  t.same([automatic!.trigger, automatic!.delivery, automatic!.prReady], ['auto', 'draft', false], 'an automatic run opened a draft')

  t.equal(await pressFix(h, issue), 'fix_started')
  const [, ready] = await fixesEnded(h, issue, 2)
  t.same([ready!.trigger, ready!.delivery, ready!.prReady], ['manual', 'ready', true], 'the person-started run verified it to ready grade')
  t.equal(h.github.pulls(REPO)[0]!.draft, false, 'ready for review')

  await regress(h, 'shop@1.6.0')
  const [, , regression] = await fixesEnded(h, issue, 3)
  t.same([regression!.trigger, regression!.delivery, regression!.prReady], ['auto', 'draft', false])
  t.equal(h.github.pulls(REPO).length, 1, 'one pull request throughout')
  t.equal(h.github.pulls(REPO)[0]!.draft, true, 'back to draft')
  t.equal(h.github.comments(REPO, regression!.prNumber!).filter((c) => c.startsWith('**Back to draft.**')).length, 1, 'said once, when it went back')

  t.equal(await pressFix(h, issue), 'fix_started')
  const [, , , verified] = await fixesEnded(h, issue, 4)
  t.same([verified!.trigger, verified!.delivery, verified!.prReady], ['manual', 'ready', true], 'a person-started run verified the head to ready grade again')
  t.equal(h.github.pulls(REPO)[0]!.draft, false, 'ready for review again')
  t.same(await h.violations(), [])
  t.equal((await checkInvestigations(h)).code, 0)
})
