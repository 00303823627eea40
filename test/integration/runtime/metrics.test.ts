import { spawn } from 'node:child_process'
import { connect, createServer, type Socket } from 'node:net'
import t, { type Test } from 'tap'
import { createGrouper } from '../../../services/grouper/index.js'
import { startWorker } from '../../../services/worker/index.js'
import { createLogger } from '../../../shared/log.js'
import { createRedis } from '../../../shared/redis.js'
import { createObjectStore } from '../../../shared/object-store.js'
import { childEnv } from '../../helpers/env.js'
import { documentedMetrics, scrape, type Scrape } from '../../helpers/metrics.js'
import { freePort, SVC } from '../../helpers/processes.js'
import { postEvent, sampleEvent, startTestStack, waitFor } from '../../helpers/stack.js'

const JSON_HEADERS = { 'Content-Type': 'application/json' }
/** A well-formed ingest key that matches no stored key. */
const UNKNOWN_KEY = `svc_pk_${'0'.repeat(12)}_${'A'.repeat(32)}`

/** How much a sample moved between two scrapes. */
function moved(before: Scrape, after: Scrape, name: string, labels: Record<string, string> = {}): number {
  return after.value(name, labels) - before.value(name, labels)
}

t.test('the ingress and the worker serve /metrics naming exactly the documented metrics; ingestion, the grouper and the lag move', async (t) => {
  const stack = await startTestStack(t)
  const log = createLogger('silent')
  const objects = await createObjectStore(stack.config.objectStore, log)
  // A worker that hosts nothing: it serves /metrics and reads the stream depths, but consumes no event.
  const worker = await startWorker({ db: stack.db, objects, redis: stack.redis, keys: stack.keys, log, services: [], timing: stack.config.stream, healthPort: 0, healthHost: '127.0.0.1' })
  t.teardown(() => worker.stop())
  const ingressUrl = `${stack.baseUrl}/metrics`
  const workerUrl = `http://127.0.0.1:${worker.healthPort}/metrics`

  const before = await scrape(ingressUrl)
  const workerBefore = await scrape(workerUrl)
  for (const answer of [before, workerBefore]) {
    t.equal(answer.contentType, 'text/plain; version=0.0.4; charset=utf-8', "Prometheus's text format")
    t.same([...answer.typeLines].filter(([, lines]) => lines > 1), [], 'each metric once')
    t.ok(answer.has('process_resident_memory_bytes') && answer.has('nodejs_eventloop_lag_seconds'), 'with the default process metrics')
  }
  const served = new Set([...before.types.keys(), ...workerBefore.types.keys()].filter((name) => name.startsWith('svc_')))
  const documented = await documentedMetrics()
  t.same([...served].filter((name) => !documented.includes(name)), [], 'every svc_ metric served is in docs/metrics.md')
  t.same(documented.filter((name) => !served.has(name)), [], 'every metric docs/metrics.md lists is served')
  t.equal(new Set(documented).size, documented.length, 'docs/metrics.md lists each once')
  t.equal(workerBefore.value('svc_stream_depth_up', { stream: 'events', group: 'grouper' }), 1, 'the worker read the depths from Redis')
  t.equal(before.value('svc_ingress_events_refused_total', { code: 'backlog_full' }), 0, 'a code never refused yet is there at 0')

  const answers = await Promise.all([
    ...Array.from({ length: 3 }, (_, i) => postEvent(stack.baseUrl, sampleEvent({ error: { type: 'TypeError', message: `metrics ${i}`, stack: 'TypeError: x\n    at a (http://localhost:5173/assets/app.js:1:1)' } }), { ...JSON_HEADERS, 'X-API-Key': stack.ingestKey })),
    ...Array.from({ length: 2 }, () => postEvent(stack.baseUrl, sampleEvent(), { ...JSON_HEADERS, 'X-API-Key': UNKNOWN_KEY })),
    postEvent(stack.baseUrl, '{"not json', { ...JSON_HEADERS, 'X-API-Key': stack.ingestKey }),
  ])
  t.same(answers.map((a) => a.status), [202, 202, 202, 401, 401, 400])
  const after = await scrape(ingressUrl)
  t.equal(moved(before, after, 'svc_ingress_events_accepted_total'), 3, 'accepted events counted')
  t.equal(moved(before, after, 'svc_ingress_events_refused_total', { code: 'key_unknown' }), 2, 'refusals counted by code')
  t.equal(moved(before, after, 'svc_ingress_events_refused_total', { code: 'invalid_json' }), 1)
  t.equal(moved(before, after, 'svc_ingress_events_refused_total'), 3, 'and nothing else')
  t.equal(moved(before, after, 'svc_ingress_request_duration_seconds_count', { result: 'accepted' }), 3, 'each request timed')
  t.equal(moved(before, after, 'svc_ingress_request_duration_seconds_count', { result: 'refused' }), 3)
  t.ok(moved(before, after, 'svc_ingress_request_duration_seconds_sum') > 0, 'for some time')

  const lagging = await scrape(workerUrl)
  t.ok(lagging.value('svc_stream_lag_entries', { stream: 'events', group: 'grouper' }) >= 1, 'with no grouper running, the events wait as lag')

  const grouper = createGrouper({ db: stack.db, objects, redis: stack.redis, keys: stack.keys, log, timing: stack.config.stream })
  await grouper.start()
  t.teardown(() => grouper.stop())
  const drained = await waitFor(async () => {
    const now = await scrape(workerUrl)
    return moved(workerBefore, now, 'svc_grouper_events_stored_total') === 3 && now.value('svc_stream_lag_entries', { stream: 'events', group: 'grouper' }) === 0 && now.value('svc_stream_pending_entries', { stream: 'events', group: 'grouper' }) === 0 ? now : undefined
  }, 20_000, 100)
  t.pass('a grouper drains the lag to 0, storing the three events')
  t.ok(moved(workerBefore, drained, 'svc_stream_batch_duration_seconds_count', { group: 'grouper', result: 'ok' }) >= 1, 'its batches are timed')
  t.ok(moved(workerBefore, drained, 'svc_stream_batch_entries_sum', { group: 'grouper' }) >= 1, 'and sized')
  t.equal(moved(workerBefore, drained, 'svc_stream_entries_acked_total', { group: 'grouper' }), drained.value('svc_stream_batch_entries_sum', { group: 'grouper' }) - workerBefore.value('svc_stream_batch_entries_sum', { group: 'grouper' }), 'every entry handed over was acknowledged')
  t.equal(moved(workerBefore, drained, 'svc_grouper_events_duplicate_total'), 0)

  await stack.redis.xadd(`${stack.keys.events}:dead:grouper`, '*', 'n', '1', '__error', 'a test dead letter')
  const dead = await scrape(workerUrl)
  t.equal(dead.value('svc_stream_dead_letter_entries', { stream: 'events', group: 'grouper' }), 1, 'a dead letter shows on its group')
})

/** A TCP proxy to Redis that can stop passing requests on (Redis then seems to hang), and resume. */
async function freezableProxy(t: Test, target: URL): Promise<{ url: string; freeze(): void; thaw(): void }> {
  let frozen = false
  const held: Array<() => void> = []
  const sockets: Socket[] = []
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname)
    sockets.push(client, upstream)
    client.on('data', (chunk) => (frozen ? held.push(() => upstream.write(chunk)) : upstream.write(chunk)))
    upstream.pipe(client)
    client.on('error', () => upstream.destroy())
    upstream.on('error', () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const socket of sockets) socket.destroy()
    server.close()
  })
  return {
    url: `redis://127.0.0.1:${(server.address() as { port: number }).port}`,
    freeze: () => void (frozen = true),
    thaw: () => {
      frozen = false
      for (const send of held.splice(0)) send()
    },
  }
}

t.test('a scrape while Redis does not answer still answers within seconds, leaving the depths out', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const proxy = await freezableProxy(t, new URL(stack.redisUrl))
  const redis = createRedis(proxy.url)
  t.teardown(() => redis.disconnect())
  const log = createLogger('silent')
  const worker = await startWorker({ db: stack.db, objects: await createObjectStore(stack.config.objectStore, log), redis, keys: stack.keys, log, services: [], timing: stack.config.stream, healthPort: 0, healthHost: '127.0.0.1' })
  t.teardown(() => worker.stop())
  const url = `http://127.0.0.1:${worker.healthPort}/metrics`
  t.equal((await scrape(url)).value('svc_stream_depth_up', { stream: 'events', group: 'grouper' }), 1)
  proxy.freeze()
  const started = Date.now()
  const frozen = await scrape(url)
  const took = Date.now() - started
  t.ok(took >= 1900 && took < 4000, `answered after the 2 s read limit (${took} ms)`)
  t.equal(frozen.value('svc_stream_depth_up', { stream: 'events', group: 'grouper' }), 0, 'saying the depths could not be read')
  t.notOk(frozen.has('svc_stream_lag_entries'), 'and leaving them out rather than reporting stale ones')
  t.ok(frozen.has('process_resident_memory_bytes') && frozen.has('svc_stream_entries_acked_total'), 'the rest is there')
  proxy.thaw()
  const thawed = await waitFor(async () => {
    const now = await scrape(url)
    return now.value('svc_stream_depth_up', { stream: 'events', group: 'grouper' }) === 1 ? now : undefined
  }, 10_000, 100)
  t.ok(thawed.has('svc_stream_lag_entries', { stream: 'events', group: 'grouper' }), 'once Redis answers, the depths are back')
})

t.test('SVC_INGRESS_METRICS=off keeps /metrics off the public ingestion port', async (t) => {
  const stack = await startTestStack(t, { env: { SVC_INGRESS_METRICS: 'off' } })
  const answer = await fetch(`${stack.baseUrl}/metrics`)
  t.equal(answer.status, 404)
  t.equal(((await answer.json()) as { code: string }).code, 'not_found')
})

t.test('svc ingress on two threads answers /metrics with every thread counted once and the process metrics once', async (t) => {
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
  const baseUrl = `http://127.0.0.1:${port}`
  // Separate connections, so the kernel spreads them over both threads.
  const send = (key: string) => fetch(`${baseUrl}/api/v1/events`, { method: 'POST', headers: { ...JSON_HEADERS, 'X-API-Key': key, Connection: 'close' }, body: JSON.stringify(sampleEvent()) })
  const answers = await Promise.all([...Array.from({ length: 30 }, () => send(stack.ingestKey)), ...Array.from({ length: 10 }, () => send(UNKNOWN_KEY))])
  t.same(answers.map((a) => a.status).sort(), [...Array(30).fill(202), ...Array(10).fill(401)])
  // Each scrape reaches one thread or the other; every one answers for both.
  for (let i = 0; i < 6; i++) {
    const answer = await scrape(`${baseUrl}/metrics`)
    t.equal(answer.value('svc_ingress_events_accepted_total'), 30, `scrape ${i}: accepted events of both threads summed`)
    t.equal(answer.value('svc_ingress_events_refused_total', { code: 'key_unknown' }), 10, `scrape ${i}: refusals too`)
    t.equal(answer.value('svc_ingress_request_duration_seconds_count'), 40, `scrape ${i}: every request timed once`)
    t.same([...answer.typeLines].filter(([, lines]) => lines > 1), [], `scrape ${i}: each metric once`)
    t.equal(answer.samples.filter((s) => s.name === 'process_resident_memory_bytes').length, 1, `scrape ${i}: the process's memory once`)
    t.ok(answer.has('process_start_time_seconds'), `scrape ${i}: its start time kept`)
  }
  child.kill('SIGTERM')
  t.equal(await exited, 0, 'and it still stops cleanly')
})
