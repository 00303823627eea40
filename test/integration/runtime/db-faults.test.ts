import t from 'tap'
import { createDb, isDatabaseOutage } from '../../../shared/db/index.js'
import { createLogger } from '../../../shared/log.js'
import { createTestDatabase } from '../../helpers/stack.js'
import { refuseConnections, terminateBackends } from '../../helpers/pg-faults.js'

function capture(): { lines: Array<Record<string, unknown>>; log: ReturnType<typeof createLogger> } {
  const lines: Array<Record<string, unknown>> = []
  return { lines, log: createLogger('info', {}, (line) => lines.push(JSON.parse(line) as Record<string, unknown>)) }
}

t.test('a connection the server terminates while a transaction holds it fails that transaction, not the process', async (t) => {
  const url = await createTestDatabase(t)
  const db = createDb(url, { max: 2, applicationName: 'svc-test-terminate' })
  t.teardown(() => db.close())
  // The termination arrives between two statements of the transaction, while no query is active:
  // node-postgres then emits 'error' on the client, which nothing heard while the pool lent it out.
  let terminated!: () => void
  let began!: () => void
  const afterTermination = new Promise<void>((resolve) => (terminated = resolve))
  const inTransaction = new Promise<void>((resolve) => (began = resolve))
  const running = db
    .withTransaction(async (client) => {
      await client.query('SELECT 1')
      began()
      await afterTermination
      await client.query('SELECT 2')
    })
    .then(
      () => undefined,
      (error: unknown) => error,
    )
  await inTransaction
  t.ok((await terminateBackends(url, { applicationName: 'svc-test-terminate' })) >= 1, 'the backend was terminated')
  await new Promise((resolve) => setTimeout(resolve, 300)) // the FATAL message and the close arrive
  terminated()
  const error = await running
  t.ok(error instanceof Error, 'the transaction failed')
  t.ok(isDatabaseOutage(error), `the failure reads as an outage (${(error as Error).message})`)
  // Before the fix the client's unhandled 'error' event ended the process here; tap would not get further.
  const { rows } = await db.query<{ one: number }>('SELECT 1 AS one')
  t.equal(rows[0]!.one, 1, 'the pool hands out a working connection afterwards: the broken one was discarded')
})

t.test('idle pooled connections the server terminates are replaced on the next query', async (t) => {
  const url = await createTestDatabase(t)
  const db = createDb(url, { max: 3, applicationName: 'svc-test-idle' })
  t.teardown(() => db.close())
  await Promise.all([db.query('SELECT 1'), db.query('SELECT 1'), db.query('SELECT 1')])
  t.ok((await terminateBackends(url, { applicationName: 'svc-test-idle' })) >= 1)
  await new Promise((resolve) => setTimeout(resolve, 200))
  const { rows } = await db.query<{ one: number }>('SELECT 1 AS one')
  t.equal(rows[0]!.one, 1)
})

t.test('a database closed to connections reads as an outage, and the outage watch logs it once each way', async (t) => {
  const url = await createTestDatabase(t)
  const { lines, log } = capture()
  const db = createDb(url, { max: 2, log })
  t.teardown(() => db.close())
  t.teardown(() => refuseConnections(url, false))
  await db.query('SELECT 1')
  await refuseConnections(url, true)
  // The pool's idle connection was terminated by the refusal; on a loaded machine the next query
  // can reach it before its termination notice is read and answer 57P01 instead. A new connection
  // is what meets the refusal, so ask until one is made (57P01 is an outage too, tested below).
  let refused: unknown
  for (let tries = 0; tries < 5; tries++) {
    refused = await db.query('SELECT 1').catch((error: unknown) => error)
    if ((refused as { code?: string }).code !== '57P01') break
  }
  t.equal((refused as { code?: string }).code, '55000', 'ALLOW_CONNECTIONS false answers 55000')
  t.ok(isDatabaseOutage(refused), '55000 "not currently accepting connections" is an outage')
  // Several pieces of work meet the same outage: one line, one probe.
  const waits = [db.outage.untilBack(refused), db.outage.untilBack(refused), db.outage.untilBack(refused)]
  t.ok(db.outage.downSince !== undefined, 'the watch says the database is down')
  await new Promise((resolve) => setTimeout(resolve, 1500))
  await refuseConnections(url, false)
  await Promise.all(waits)
  t.equal(db.outage.downSince, undefined, 'up again once a probe succeeded')
  const said = lines.map((line) => String(line.msg))
  t.same(said.filter((msg) => /database unreachable/.test(msg)).length, 1, 'one line when the outage starts')
  t.same(said.filter((msg) => /database reachable again/.test(msg)).length, 1, 'one line when it ends')
  t.match(lines.find((line) => /reachable again/.test(String(line.msg))), { down_ms: Number })
})

t.test('what counts as a database outage and what does not', async (t) => {
  const outages = [
    { code: 'ECONNREFUSED' },
    { code: 'ECONNRESET' },
    { code: '57P01', message: 'terminating connection due to administrator command' },
    { code: '57P03', message: 'the database system is starting up' },
    { code: '08006' },
    { code: '53300', message: 'too many connections' },
    { code: '53100', message: 'could not extend file: No space left on device' },
    { code: '55000', message: 'database "x" is not currently accepting connections' },
    new Error('Connection terminated unexpectedly'),
    new Error('timeout exceeded when trying to connect'),
  ]
  for (const error of outages) t.ok(isDatabaseOutage(error), `outage: ${JSON.stringify(error) === '{}' ? (error as Error).message : JSON.stringify(error)}`)
  const failures = [
    { code: '23505', message: 'duplicate key value violates unique constraint' },
    { code: '55000', message: 'currval of sequence "s" is not yet defined in this session' },
    { code: '42P01', message: 'relation "x" does not exist' },
    { code: 'ENOENT', message: 'no such file' },
    new Error('boom'),
    undefined,
  ]
  for (const error of failures) t.notOk(isDatabaseOutage(error), `not an outage: ${JSON.stringify(error) ?? 'undefined'}`)
})
