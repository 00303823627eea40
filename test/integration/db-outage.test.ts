import { connect, createServer, type Server, type Socket } from 'node:net'
import t from 'tap'
import { loadConfig } from '../../shared/config.js'
import { createDb } from '../../shared/db.js'
import { createLogger } from '../../shared/log.js'
import { createObjectStore } from '../../shared/object-store.js'
import { startWorker } from '../../services/worker/index.js'
import { postEvent, sampleEvent, startTestStack, waitFor } from '../helpers/stack.js'

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
