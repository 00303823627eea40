import t, { type Test } from 'tap'
import type { EntityManager } from '@mikro-orm/postgresql'
import { createOrm } from '../../../shared/db/orm.js'
import { openInvestigation } from '../../../services/investigator/store/admissions.js'
import { Investigation, InvestigationOutcome, INVESTIGATOR_ENTITIES } from '../../../services/investigator/store/entities.js'
import { claimRun, RunTakenOver } from '../../../services/investigator/store/run-record.js'
import { sweepLapsed } from '../../../shared/jobs/index.js'
import { fixJob } from '../../../services/investigator/fix/job.js'
import { investigationJob } from '../../../services/investigator/investigation/job.js'
import { Fix } from '../../../services/investigator/store/fix-entities.js'
import { claimFix } from '../../../services/investigator/store/fix-record.js'
import { createLogger } from '../../../shared/log.js'
import { postEvent, sampleEvent, startTestStack, waitFor, type TestStack } from '../../helpers/stack.js'
import type { Orm } from '../../../shared/db/orm.js'

const LEASE = 60_000

const NO_TOOLS = { model: undefined, codehost: undefined }

/** The investigation job kind over the test stack (as a worker's sweeper sees it). */
function investigations(stack: TestStack, orm: Orm) {
  return investigationJob({ db: stack.db, orm, redis: stack.redis, keys: stack.keys, tools: NO_TOOLS, limits: stack.config.investigations, log: createLogger('silent') })
}

/** The fix job kind over the test stack. */
function fixes(stack: TestStack, orm: Orm) {
  return fixJob({ db: stack.db, orm, redis: stack.redis, keys: stack.keys, tools: NO_TOOLS, sandboxes: undefined, template: undefined, evidenceLimits: stack.config.investigations.sandbox, limits: stack.config.investigations, publicUrl: '' })
}

/**
 * A stack with one issue (one event, one user: never admitted on its own) and the investigator's
 * ORM. Its worker runs the grouper alone: the tests below are the only claimants, so a sweeper's
 * dispatch is not picked up by a running investigator behind their backs.
 */
async function oneIssue(t: Test) {
  const stack = await startTestStack(t, { worker: true, env: { SVC_SERVICES: 'grouper' } })
  const orm = await createOrm(stack.db, INVESTIGATOR_ENTITIES)
  t.teardown(() => orm.close())
  const answer = await postEvent(stack.baseUrl, sampleEvent(), { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey })
  const eventId = String(answer.body.id)
  const issueId = await waitFor(async () => (await stack.db.query<{ issue_id: string }>('SELECT issue_id FROM events WHERE id = $1', [eventId])).rows[0]?.issue_id)
  return { stack, orm, issueId }
}

t.test('one investigation is run by one worker at a time, however its deliveries overlap', async (t) => {
  const { stack, orm, issueId } = await oneIssue(t)
  const opened = await openInvestigation(orm, { issueId, projectId: stack.projectId, trigger: 'manual', leaseMs: LEASE })
  t.ok(opened, 'opened queued')
  t.equal(await openInvestigation(orm, { issueId, projectId: stack.projectId, trigger: 'manual', leaseMs: LEASE }), undefined, 'a second is not opened while one is in flight')
  const id = opened!.id

  const claims = await Promise.allSettled([claimRun(orm, id, LEASE, { maxAttempts: 3 }), claimRun(orm, id, LEASE, { maxAttempts: 3 })])
  const won = claims.filter((c) => c.status === 'fulfilled' && c.value.status === 'claimed')
  const lost = claims.filter((c) => (c.status === 'fulfilled' && c.value.status === 'held') || (c.status === 'rejected' && c.reason instanceof RunTakenOver))
  t.equal(won.length, 1, 'two deliveries claiming at once: one wins')
  t.equal(lost.length, 1, 'the other finds it held or taken')
  const first = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof claimRun>>>).value
  if (first.status !== 'claimed') throw new Error('unreachable')
  t.equal((await claimRun(orm, id, LEASE, { maxAttempts: 3 })).status, 'held', 'a later delivery leaves a run whose lease holds alone')

  // Its worker stalls: the lease lapses, the sweeper hands the run to the queue and dispatches it.
  await stack.db.query("UPDATE investigations SET lease_until = now() - interval '1 second' WHERE id = $1", [id])
  t.same(await sweepLapsed(investigations(stack, orm), { orm, leaseMs: LEASE, maxAttempts: 3 }), { redispatched: 1, stopped: 0 })
  const second = await claimRun(orm, id, LEASE, { maxAttempts: 3 })
  t.equal(second.status, 'claimed', 'another worker claims it afresh')
  await t.rejects(first.record.step({ kind: 'check', name: 'late' }), RunTakenOver, "the stalled worker's next write finds it taken over")
  if (second.status !== 'claimed') throw new Error('unreachable')
  t.equal(second.record.attempt, 2)
  await second.record.finish({ kind: 'needs_human', reasonCode: 'low_confidence', reasonMessage: 'test', remediation: 'test' }, 0)
  await t.rejects(first.record.finish({ kind: 'investigated', summary: 'late' }, 0), RunTakenOver, 'nor can it finish it a second time')
  t.equal((await claimRun(orm, id, LEASE, { maxAttempts: 3 })).status, 'finished')
  const em = orm.em.fork() as EntityManager
  t.equal(await em.count(InvestigationOutcome, { investigationId: id }), 1, 'exactly one outcome')
  t.equal((await em.findOneOrFail(Investigation, id)).state, 'needs_human')
})

t.test('a run whose attempts are spent is stopped by the sweeper with lease_lost, never claimed again', async (t) => {
  const { stack, orm, issueId } = await oneIssue(t)
  const { id } = (await openInvestigation(orm, { issueId, projectId: stack.projectId, trigger: 'manual', leaseMs: LEASE }))!
  for (let attempt = 1; attempt <= 2; attempt++) {
    t.equal((await claimRun(orm, id, LEASE, { maxAttempts: 2 })).status, 'claimed')
    await stack.db.query("UPDATE investigations SET lease_until = now() - interval '1 second' WHERE id = $1", [id])
  }
  t.equal((await claimRun(orm, id, LEASE, { maxAttempts: 2 })).status, 'spent', 'a third delivery does not start it')
  t.same(await sweepLapsed(investigations(stack, orm), { orm, leaseMs: LEASE, maxAttempts: 2 }), { redispatched: 0, stopped: 1 })
  const { rows } = await stack.db.query<{ status: string; reason_code: string }>('SELECT status, reason_code FROM issues WHERE id = $1', [issueId])
  t.same(rows[0], { status: 'needs_human', reason_code: 'lease_lost' }, "the issue shows the stop and its reason")
})

t.test('a fix follows an investigated outcome in its transaction; once its attempts are spent the sweeper stops it with lease_lost', async (t) => {
  const { stack, orm, issueId } = await oneIssue(t)
  const { id } = (await openInvestigation(orm, { issueId, projectId: stack.projectId, trigger: 'auto', leaseMs: LEASE }))!
  const claim = await claimRun(orm, id, LEASE, { maxAttempts: 3 })
  if (claim.status !== 'claimed') throw new Error('not claimed')
  await claim.record.finish({ kind: 'investigated', summary: 's', chain: ['c'], fix: 'f', confidence: 0.9, citations: [{ path: 'a.ts', lineStart: 1, lineEnd: 1, quote: 'x' }] }, 0)
  const fixId = claim.record.queuedFix
  t.ok(fixId, 'the fix was queued with the outcome')
  const issueStatus = async () => (await stack.db.query<{ status: string; reason_code: string }>('SELECT status, reason_code FROM issues WHERE id = $1', [issueId])).rows[0]
  t.same(await issueStatus(), { status: 'investigated', reason_code: '' }, 'the issue waits in investigated while its fix is queued')

  for (let attempt = 1; attempt <= 2; attempt++) {
    const fixClaim = await claimFix(orm, fixId!, LEASE, { maxAttempts: 2 })
    t.equal(fixClaim.status, 'claimed')
    t.equal((await claimFix(orm, fixId!, LEASE, { maxAttempts: 2 })).status, 'held', 'an overlapping delivery leaves it alone')
    t.same(await issueStatus(), { status: 'fixing', reason_code: '' })
    await stack.db.query("UPDATE fixes SET lease_until = now() - interval '1 second' WHERE id = $1", [fixId])
  }
  t.equal((await claimFix(orm, fixId!, LEASE, { maxAttempts: 2 })).status, 'spent')
  t.same(await sweepLapsed(fixes(stack, orm), { orm, leaseMs: LEASE, maxAttempts: 2 }), { redispatched: 0, stopped: 1 })
  t.same(await issueStatus(), { status: 'needs_human', reason_code: 'lease_lost' })
  const em = orm.em.fork() as EntityManager
  t.equal((await em.findOneOrFail(Fix, fixId!)).remediation.length > 10, true, 'with what to do')
})
