import t from 'tap'
import type { EntityManager } from '@mikro-orm/postgresql'
import { Investigation } from '../../../services/investigator/store/entities.js'
import { gatedBrain } from '../../helpers/investigation/investigator-brain.js'
import { startHarness, type Harness } from '../../helpers/investigation/investigation-harness.js'
import { waitFor } from '../../helpers/stack.js'

const FINISHED = ['investigated', 'insight', 'needs_human']

function runOf(h: Harness, issueId: string): Promise<Investigation> {
  return (h.orm.em.fork() as EntityManager).findOneOrFail(Investigation, { issueId }, { orderBy: { episode: 'desc' } })
}

t.test('a code host that is down for the whole run stops it with codehost_unavailable after the last attempt', async (t) => {
  const h = await startHarness(t, { env: { SVC_STREAM_RETRY_BASE_MS: '200' } })
  h.github.failWith(503)
  const issue = await h.send('app', 2)
  const row = await h.settle(issue, 60_000)
  t.equal(row.status, 'needs_human')
  t.equal(row.reason_code, 'codehost_unavailable')
  const run = await runOf(h, issue)
  t.equal(run.attempts, h.stack.config.stream.maxAttempts, 'every attempt was spent before stopping')
  t.equal(h.models.turns.length, 0, 'the model was never asked')
  t.same(await h.violations(), [])
})

t.test('a code host outage in the middle of a run is retried, and the run finishes once git answers again', async (t) => {
  const h = await startHarness(t, { env: { SVC_STREAM_RETRY_BASE_MS: '2000' } })
  h.github.failGit(503)
  const issue = await h.send('app', 2)
  // The first attempt got past the REST calls and failed at the clone: handed back to the queue for the retry.
  await waitFor(async () => {
    const run = await runOf(h, issue).catch(() => undefined) // none yet on the first polls
    if (!run) return undefined
    return run.attempts === 1 && run.state === 'queued' ? run : undefined
  }, 20_000, 50)
  t.equal((await h.waitForStatus(issue, ['queued'])).status, 'queued', "the issue shows it waiting, not analyzing")
  h.github.failGit(undefined)
  const row = await h.settle(issue, 30_000)
  t.equal(row.outcome, 'investigated')
  t.equal((await runOf(h, issue)).attempts, 2, 'on its second attempt')
  t.same(await h.violations(), [])
})

t.test('a worker that stops mid-investigation hands it back, and another worker finishes it', async (t) => {
  const { script: gated, open } = gatedBrain()
  const h = await startHarness(t, { script: gated, env: { INVESTIGATION_LEASE_SECONDS: '2' } })
  const issue = await h.send('app', 2)
  await waitFor(async () => h.models.turns.length > 0 || undefined, 20_000, 50)
  // The other worker starts once the first has stopped: were it running, its sweep could dispatch
  // the handed-back run (a fresh lease) before this reads the row.
  await h.stack.worker!.stop()
  const handedBack = await runOf(h, issue)
  t.equal(handedBack.state, 'queued', 'the stopping worker handed it back to the queue')
  t.ok(handedBack.leaseUntil.getTime() <= Date.now(), 'with its lease lapsed, for the next sweep to dispatch at once')
  await h.stack.startWorker()
  open()
  t.equal((await h.settle(issue, 30_000)).outcome, 'investigated', 'the other worker finished it')
  const done = await runOf(h, issue)
  t.equal(done.attempts, 2, 'on a second attempt (the stopped one stays counted)')
  t.same(await h.violations(), [])
})

t.test('an investigated issue that comes back in a newer release is investigated again as a regression', async (t) => {
  const h = await startHarness(t)
  const issue = await h.send('app', 2)
  t.equal((await h.settle(issue)).outcome, 'investigated')
  await h.send('app', 2)
  await new Promise((resolve) => setTimeout(resolve, 1000))
  t.equal((await runOf(h, issue)).episode, 1, 'more events in the same release start nothing')

  await h.uploadMaps('shop@1.5.0')
  t.equal(await h.send('app', 2, { release: 'shop@1.5.0' }), issue, 'the newer release groups into the same issue')
  const again = await waitFor(async () => {
    const run = await runOf(h, issue).catch(() => undefined) // none yet on the first polls
    if (!run) return undefined
    return run.episode === 2 && FINISHED.includes(run.state) ? run : undefined
  }, 30_000, 100)
  t.equal(again.trigger, 'regression')
  t.equal(again.release, 'shop@1.5.0', 'investigated at the release it came back in')
  t.equal(again.state, 'investigated')
  t.equal(again.commitSha, h.commit, 'an untagged release is read at the default branch head')
  t.same(await h.violations(), [])
})
