import { connect, createServer, type Server, type Socket } from 'node:net'
import t from 'tap'
import { loadConfig } from '../../../shared/config/index.js'
import { createDb } from '../../../shared/db/index.js'
import { createLogger } from '../../../shared/log.js'
import { createObjectStore } from '../../../shared/object-store.js'
import { startWorker } from '../../../services/worker/index.js'
import { refuseConnections } from '../../helpers/pg-faults.js'
import { postEvent, sampleEvent, startTestStack, waitFor } from '../../helpers/stack.js'

/** A TCP hop to PostgreSQL that the test can cut and restore, like a database restart. */
async function cuttableProxy(target: { host: string; port: number }): Promise<{ port: number; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  let server: Server | undefined
  const sockets = new Set<Socket>()
  let port = 0
  const open = (): Promise<void> =>
    new Promise((resolve) => {
      server = createServer((client) => {
        const upstream = connect(target.port, target.host)
        for (const socket of [client, upstream]) {
          sockets.add(socket)
          socket.on('error', () => {}).once('close', () => sockets.delete(socket))
        }
        client.pipe(upstream).pipe(client)
        client.once('close', () => upstream.destroy())
        upstream.once('close', () => client.destroy())
      })
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port
        resolve()
      })
    })
  const cut = async (): Promise<void> => {
    for (const socket of sockets) socket.destroy()
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
    server = undefined
  }
  await open()
  return { port, cut, restore: open, close: cut }
}

t.test('a database outage longer than every retry backoff dead-letters nothing: the batch waits and is stored after', async (t) => {
  const stack = await startTestStack(t)
  const url = new URL(stack.databaseUrl)
  const proxy = await cuttableProxy({ host: url.hostname, port: Number(url.port) })
  t.teardown(() => proxy.close())
  url.host = `127.0.0.1:${proxy.port}`
  const db = createDb(url.toString(), { max: 2 })
  t.teardown(() => db.close())
  // Retries 20 ms apart: three attempts would be spent in well under a second of outage.
  const config = loadConfig({ SVC_STREAM_RETRY_BASE_MS: '20', SVC_STREAM_MAX_ATTEMPTS: '3', LOG_LEVEL: 'silent' })
  const worker = await startWorker({ db, objects: await createObjectStore(stack.config.objectStore), redis: stack.redis, keys: stack.keys, log: createLogger('silent'), services: ['grouper'], timing: config.stream, healthPort: 0, healthHost: '127.0.0.1' })
  t.teardown(() => worker.stop())

  await proxy.cut()
  const headers = { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey }
  for (let i = 0; i < 20; i++) t.equal((await postEvent(stack.baseUrl, sampleEvent({ session_id: `s${i}` }), headers)).status, 202)
  await new Promise((resolve) => setTimeout(resolve, 3000))
  const during = await worker.services[0]!.depth()
  t.equal(during.deadLettered, 0, 'nothing dead-lettered during the outage')
  t.ok(during.eligible >= 20, `the events wait, eligible (${during.eligible})`)

  await proxy.restore()
  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === 20, 20_000, 100)
  const after = await worker.services[0]!.depth()
  t.equal(after.deadLettered, 0, 'still nothing dead-lettered')
  const { rows } = await stack.db.query<{ n: string }>('SELECT event_count AS n FROM issues')
  t.equal(Number(rows[0]!.n), 20, 'each event counted once')
})

t.test('a database refusing connections (55000) holds batches without spending attempts: two workers, one log line each way, nothing reclaimed, each event stored once within seconds of the database answering', async (t) => {
  const stack = await startTestStack(t, { env: { SVC_EVENTS_PER_KEY_PER_MINUTE: '100000' } })
  const lines: Array<Record<string, unknown>> = []
  const log = createLogger('info', {}, (line) => lines.push(JSON.parse(line) as Record<string, unknown>))
  // Default retry timing (30 s first backoff): a batch that spent an attempt would wait that long.
  const config = loadConfig({ SVC_STREAM_LEASE_MS: '600', LOG_LEVEL: 'info' })
  const workers = []
  for (let i = 0; i < 2; i++) {
    const db = createDb(stack.databaseUrl, { max: 2, log: log.child({ worker: i }) })
    t.teardown(() => db.close())
    const worker = await startWorker({ db, objects: await createObjectStore(stack.config.objectStore), redis: stack.redis, keys: stack.keys, log: log.child({ worker: i }), services: ['grouper'], timing: config.stream, healthPort: 0, healthHost: '127.0.0.1' })
    t.teardown(() => worker.stop())
    workers.push(worker)
  }
  const headers = { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey }
  t.equal((await postEvent(stack.baseUrl, sampleEvent({ session_id: 'warm' }), headers)).status, 202, 'the key verified before the outage')
  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === 1, 10_000, 50)

  await refuseConnections(stack.databaseUrl, true)
  t.teardown(() => refuseConnections(stack.databaseUrl, false))
  for (let i = 0; i < 30; i++) t.equal((await postEvent(stack.baseUrl, sampleEvent({ session_id: `s${i}` }), headers)).status, 202)
  // Longer than the lease several times over: held batches are renewed, not reclaimed.
  await new Promise((resolve) => setTimeout(resolve, 3000))
  const health = await (await fetch(`http://127.0.0.1:${workers[0]!.healthPort}/health`)).text()
  t.match(health, /^status: waiting$/m, 'health says the worker waits')
  t.match(health, /waiting_for=database/)
  t.equal(await stack.redis.zcard(`${stack.keys.events}:delayed:grouper`), 0, 'no entry went to the retry backoff')

  await refuseConnections(stack.databaseUrl, false)
  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === 31, 10_000, 50)
  const { rows } = await stack.db.query<{ n: string }>('SELECT sum(event_count) AS n FROM issues')
  t.equal(Number(rows[0]!.n), 31, 'each event counted once')
  const said = (pattern: RegExp): number => lines.filter((line) => pattern.test(String(line.msg))).length
  t.ok(said(/database unreachable/) >= 1 && said(/database unreachable/) <= 2, `one outage line per worker that met it (${said(/database unreachable/)})`)
  t.equal(said(/database reachable again/), said(/database unreachable/), 'and one line each when it ended')
  t.equal(said(/took over entries/), 0, 'nothing was reclaimed from a live worker')
  t.equal(said(/grouper consumer error/), 0, 'an outage is not logged as an error per batch')
})
