import { spawn } from 'node:child_process'
import { connect, type Socket } from 'node:net'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { childEnv } from '../../helpers/env.js'
import { freePort } from '../../helpers/processes.js'
import { postEvent, queuedEvents, sampleEvent, startTestStack, waitFor } from '../../helpers/stack.js'

const SVC = fileURLToPath(new URL('../../../bin/svc.js', import.meta.url))

/** A port nothing listens on right now. */

/** Opens a raw keep-alive connection, sends one request on it and leaves it open and idle. */
async function idleKeepAlive(port: number): Promise<{ socket: Socket; closed: Promise<void> }> {
  const socket = connect(port, '127.0.0.1')
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  const answered = new Promise<string>((resolve) => socket.once('data', (chunk) => resolve(String(chunk))))
  socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n')
  const head = await answered
  if (!head.startsWith('HTTP/1.1 200')) throw new Error(`unexpected answer: ${head}`)
  return { socket, closed }
}

t.test('stopping the ingress closes idle keep-alive connections instead of waiting on them', async (t) => {
  const stack = await startTestStack(t)
  const port = Number(new URL(stack.baseUrl).port)
  const { socket, closed } = await idleKeepAlive(port)
  t.teardown(() => socket.destroy())
  const started = Date.now()
  await stack.ingress!.stop()
  stack.ingress = undefined
  await closed
  t.ok(Date.now() - started < 3000, 'the idle connection was closed promptly')
})

t.test('svc ingress on two threads accepts events on one port and exits on SIGTERM despite an open connection', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const port = await freePort()
  const child = spawn(process.execPath, [SVC, 'ingress'], {
    env: childEnv({ DATABASE_URL: stack.databaseUrl, REDIS_URL: stack.redisUrl, REDIS_KEY_PREFIX: stack.prefix, INGESTION_PORT: String(port), SVC_INGRESS_THREADS: '2', SVC_INGESTION_HOST: '127.0.0.1', LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  await waitFor(async () => stderr.includes('ingress threads listening'), 30_000, 50)
  t.match(stderr, /"threads":2/, 'both threads listen')
  const baseUrl = `http://127.0.0.1:${port}`
  const answers = await Promise.all(Array.from({ length: 40 }, () => postEvent(baseUrl, sampleEvent(), { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey })))
  t.same([...new Set(answers.map((a) => a.status))], [202], 'every event accepted')
  t.equal(await queuedEvents(stack), 40, 'and queued')
  const { socket, closed } = await idleKeepAlive(port)
  t.teardown(() => socket.destroy())
  child.kill('SIGTERM')
  t.equal(await exited, 0, 'exits cleanly')
  await closed
  t.pass('the idle connection was closed')
})

t.test('svc ingress on two threads fails at start with the port message when the port is taken', async (t) => {
  const stack = await startTestStack(t)
  const port = new URL(stack.baseUrl).port
  const child = spawn(process.execPath, [SVC, 'ingress'], {
    env: childEnv({ DATABASE_URL: stack.databaseUrl, REDIS_URL: stack.redisUrl, REDIS_KEY_PREFIX: stack.prefix, INGESTION_PORT: port, SVC_INGRESS_THREADS: '2', SVC_INGESTION_HOST: '127.0.0.1', LOG_LEVEL: 'silent' }),
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  t.equal(code, 1)
  t.match(stderr, new RegExp(`Port ${port} on 127.0.0.1 is taken`))
})
