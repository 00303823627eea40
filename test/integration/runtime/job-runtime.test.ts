/**
 * The job runtime (shared/jobs/) with a kind of job of the test's own, on a table of its own: what
 * an actor that is not the investigator (the matcher, the digester) gets from the kit, shown
 * without any of the investigator's code.
 */
import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import { EntitySchema } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import { Redis } from 'ioredis'
import { createDb } from '../../../shared/db/index.js'
import { claimRow, FleetSlots, JobStop, LeasedRecord, PeriodicSweeper, runJob, sweepLapsed, type ClaimOptions, type JobClaim, type JobKind } from '../../../shared/jobs/index.js'
import { createLogger } from '../../../shared/log.js'
import { createOrm, type Orm } from '../../../shared/db/orm.js'
import { TEST_REDIS_URL } from '../../helpers/env.js'
import { createTestDatabase } from '../../helpers/stack.js'

class Chore {
  id: string = randomUUID()
  state = 'queued'
  attempts = 0
  leaseUntil: Date = new Date(Date.now() + 60_000)
  startedAt: Date | null = null
  result = ''
  version = 1
}

const ChoreSchema = new EntitySchema<Chore>({
  class: Chore,
  tableName: 'chores',
  properties: { id: { type: 'uuid', primary: true }, state: { type: 'string' }, attempts: { type: 'integer' }, leaseUntil: { type: 'datetime' }, startedAt: { type: 'datetime', nullable: true }, result: { type: 'text' }, version: { type: 'integer', version: true } },
})

type End = { ok: true; result: string } | { ok: false; code: string; message: string }

class ChoreRecord extends LeasedRecord<Chore> {
  requeue(leaseMs = this.leaseMs): Promise<void> {
    return this.write((_, row) => {
      row.state = 'queued'
      row.leaseUntil = new Date(Date.now() + leaseMs)
    })
  }

  finish(end: End): Promise<void> {
    return this.write((_, row) => {
      row.state = end.ok ? 'done' : 'stopped'
      row.result = end.ok ? end.result : `${end.code}: ${end.message}`
    })
  }
}

async function claimChore(orm: Orm, id: string, leaseMs: number, options: ClaimOptions<Chore> = {}): Promise<JobClaim<ChoreRecord>> {
  const em = options.loaded?.em ?? (orm.em.fork() as EntityManager)
  const row = options.loaded?.row ?? (await em.findOne(Chore, id))
  return claimRow(em, row, { finalStates: ['done', 'stopped'], runningState: 'running', leaseMs, record: (held, chore) => new ChoreRecord(held, chore, leaseMs), claimed: async () => undefined }, options)
}

class Outage extends Error {}

/** A kind whose work does what work says. */
function choreKind(work: (record: ChoreRecord) => Promise<End>, dispatched: string[] = []): JobKind<Chore, ChoreRecord, string, End> {
  return {
    what: 'chore',
    entity: Chore,
    activeStates: ['queued', 'running'],
    runningState: 'running',
    claim: claimChore,
    stopped: (code, message) => ({ ok: false, code, message }),
    prepare: async (row) => (row.result === 'nothing to do' ? { end: { ok: false, code: 'nothing', message: 'nothing to do' } } : { subject: row.id }),
    work: (record) => work(record),
    requeued: async () => undefined,
    dispatch: async (id) => void dispatched.push(id),
    failureCode: (error) => (error instanceof Outage ? 'remote_unavailable' : 'chore_failed'),
  }
}

async function setUp(t: Test) {
  const url = await createTestDatabase(t)
  const db = createDb(url, { max: 2 })
  t.teardown(() => db.close())
  await db.query('CREATE TABLE chores (id uuid PRIMARY KEY, state text NOT NULL, attempts integer NOT NULL, lease_until timestamptz NOT NULL, started_at timestamptz, result text NOT NULL, version integer NOT NULL DEFAULT 1)')
  const orm = await createOrm(db, [ChoreSchema as unknown as EntitySchema])
  t.teardown(() => orm.close())
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: false })
  t.teardown(() => redis.disconnect())
  const prefix = `jobs-test:${randomUUID()}`
  t.teardown(async () => void (await redis.del(`${prefix}:slots`, `${prefix}:sweep`)))
  const slots = new FleetSlots(redis, `${prefix}:slots`, 1, 60_000)
  const stopping = new AbortController()
  const deps = { orm, slots, leaseMs: 60_000, log: createLogger('silent'), holder: 'test', stopping: stopping.signal }
  const add = async (fields: Partial<Chore> = {}): Promise<string> => {
    const em = orm.em.fork()
    const chore = Object.assign(new Chore(), fields)
    await em.persist(chore).flush()
    return chore.id
  }
  const read = async (id: string): Promise<Chore> => (orm.em.fork() as EntityManager).findOneOrFail(Chore, id)
  return { db, orm, redis, prefix, slots, deps, add, read }
}

const delivery = (id: string, attempt = 1) => ({ id, attempt, maxAttempts: 3, signal: new AbortController().signal })

t.test('a job runs once to its end, a reasoned stop ends it, and a prepared stop ends it without work', async (t) => {
  const { deps, add, read } = await setUp(t)
  const done = await add()
  await runJob(choreKind(async () => ({ ok: true, result: 'swept' })), deps, delivery(done))
  t.match(await read(done), { state: 'done', attempts: 1, result: 'swept' })
  let ran = 0
  await runJob(choreKind(async () => (ran++, { ok: true, result: 'again' })), deps, delivery(done))
  t.equal(ran, 0, 'an ended job is not run again by a late delivery')

  const stopped = await add()
  await runJob(choreKind(async () => { throw new JobStop('too_dusty', 'The attic is too dusty.') }), deps, delivery(stopped))
  t.match(await read(stopped), { state: 'stopped', result: 'too_dusty: The attic is too dusty.' })

  const nothing = await add({ result: 'nothing to do' })
  await runJob(choreKind(async () => (ran++, { ok: true, result: 'x' })), deps, delivery(nothing))
  t.match(await read(nothing), { state: 'stopped', result: 'nothing: nothing to do' })
  t.equal(ran, 0, 'the work never ran')
})

t.test('a failure is retried until the job has spent its attempts, then stops with the failure\'s own code', async (t) => {
  const { deps, add, read } = await setUp(t)
  const id = await add()
  const failing = choreKind(async () => { throw new Outage('the remote answered 503') })
  for (const attempt of [1, 2]) {
    await t.rejects(runJob(failing, deps, delivery(id, attempt)), { message: 'the remote answered 503' }, `attempt ${attempt} is rethrown for the stream's retry`)
    t.match(await read(id), { state: 'queued', attempts: attempt })
  }
  // The stream's delivery says 1, but the job's row has used two: this claim is its last attempt.
  await runJob(failing, deps, delivery(id, 1))
  t.match(await read(id), { state: 'stopped', attempts: 3, result: 'remote_unavailable: the remote answered 503' })
})

t.test('a write whose transaction fails leaves nothing behind for the next write to flush', async (t) => {
  const { deps, add, read, orm } = await setUp(t)
  const id = await add()
  const claim = await claimChore(orm, id, deps.leaseMs)
  if (claim.status !== 'claimed') throw new Error('not claimed')
  const record = claim.record
  const stray = new Chore()
  await t.rejects(
    record.write((tx, row) => {
      row.result = 'half-written'
      tx.persist(stray)
      throw new Error('the step failed after changing the row')
    }),
    { message: 'the step failed after changing the row' },
  )
  t.equal(record.current.result, '', 'the row in memory is as the database holds it')
  await record.requeue()
  t.match(await read(id), { state: 'queued', result: '' }, 'the requeue wrote only its own change')
  t.equal(await (orm.em.fork() as EntityManager).count(Chore, { id: stray.id }), 0, 'and no entity the failed write persisted')
})

t.test('a lapsed job is dispatched again; one whose attempts are spent stops with lease_lost', async (t) => {
  const { orm, add, read } = await setUp(t)
  const dispatched: string[] = []
  const kind = choreKind(async () => ({ ok: true, result: 'x' }), dispatched)
  const lapsed = await add({ state: 'running', attempts: 1, leaseUntil: new Date(Date.now() - 1000) })
  const spent = await add({ state: 'running', attempts: 3, leaseUntil: new Date(Date.now() - 1000) })
  const live = await add({ state: 'running', attempts: 1 })
  t.same(await sweepLapsed(kind, { orm, leaseMs: 60_000, maxAttempts: 3 }), { redispatched: 1, stopped: 1 })
  t.same(dispatched, [lapsed])
  t.match(await read(lapsed), { state: 'queued', attempts: 1 })
  t.match(await read(spent), { state: 'stopped', result: /^lease_lost: No worker finished the chore in 3 attempts/ })
  t.match(await read(live), { state: 'running' }, 'a live lease is left alone')
})

t.test('a fleet slot is held while a job runs: a second waits for it', async (t) => {
  const { deps, add, read } = await setUp(t)
  let open = (): void => undefined
  const gate = new Promise<void>((resolve) => (open = resolve))
  const first = await add()
  const second = await add()
  const running = runJob(choreKind(async () => (await gate, { ok: true, result: 'first' })), deps, delivery(first))
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.equal(await deps.slots.running(), 1, 'the first holds the one slot')
  const waiting = runJob(choreKind(async () => ({ ok: true, result: 'second' })), deps, delivery(second))
  await new Promise((resolve) => setTimeout(resolve, 1500))
  t.match(await read(second), { state: 'queued', attempts: 0 }, 'the second waits, unclaimed')
  open()
  await Promise.all([running, waiting])
  t.match(await read(second), { state: 'done', result: 'second' }, 'and runs once the slot is free')
  t.equal(await deps.slots.running(), 0, 'every slot is given back')
})

t.test('of two workers\' periodic sweepers, one runs each interval\'s passes', async (t) => {
  const { redis, prefix } = await setUp(t)
  const runs: string[] = []
  const sweepers = ['a', 'b'].map((name) => new PeriodicSweeper({ redis, lockKey: `${prefix}:sweep`, everyMs: 300, passes: [{ name: 'count', run: async () => void runs.push(name) }] }))
  for (const sweeper of sweepers) sweeper.start()
  await new Promise((resolve) => setTimeout(resolve, 1600))
  for (const sweeper of sweepers) await sweeper.stop()
  t.ok(runs.length >= 3 && runs.length <= 6, `about one pass per interval for the fleet (${runs.length} in 1.6 s of 0.3 s intervals), not one per worker`)
  const failing = new PeriodicSweeper({ redis, lockKey: `${prefix}:other`, everyMs: 1000, passes: [{ name: 'broken', run: async () => { throw new Error('broken pass') } }, { name: 'fine', run: async () => void runs.push('fine') }] })
  const errors: unknown[] = []
  failing.on('error', (error: unknown) => errors.push(error))
  await failing.sweepNow()
  t.equal(errors.length, 1, 'a failing pass is reported')
  t.equal(runs.at(-1), 'fine', 'and the passes after it still run')
})
