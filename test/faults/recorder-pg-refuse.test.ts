import { randomUUID } from 'node:crypto'
import pg from 'pg'
import t from 'tap'
import { chunkFields, chunkObjectKey, type RecordingChunk } from '../../shared/domain/recording-chunk.js'
import { streamKeys } from '../../shared/redis.js'
import { SEED_PROJECT_ID } from '../../shared/db/seed.js'
import { queueDepth } from '../../shared/streams/index.js'
import { GROUPS } from '../../shared/topology.js'
import { refuseConnections } from '../helpers/pg-faults.js'
import { patience } from '../helpers/patience.js'
import { textOf } from '../helpers/processes.js'
import { sleep } from './load.js'
import { linesMatching, supervisedStack, warningsIn } from './stack.js'

// Bounded: a scenario that has not recovered by then has failed (the runner's default is 2 min a file).
t.setTimeout(5 * 60_000)

const RECORDINGS = 20

t.test('PostgreSQL refusing connections for 6 s while the recorder is mid-batch, with entries delivered twice: the worker waits and resumes, and every chunk is stored exactly once and counted once', async (t) => {
  const stack = await supervisedStack(t)
  t.teardown(() => refuseConnections(stack.databaseUrl, false))
  const keys = streamKeys(stack.prefix)
  const recordings = Array.from({ length: RECORDINGS }, () => randomUUID())
  const sent = new Map<string, RecordingChunk>()
  const nextSeq = new Array<number>(RECORDINGS).fill(0)
  let producing = true
  let entries = 0
  // As the ingress adds them (ledger, then entry), one chunk every 20 ms across the recordings;
  // every seventh is added twice, as a stream redelivers an entry whose acknowledgement was lost.
  const producer = (async () => {
    for (let n = 0; producing; n++) {
      const which = n % RECORDINGS
      const seq = nextSeq[which]!++
      const now = Date.now()
      const chunk: RecordingChunk = {
        projectId: SEED_PROJECT_ID, recordingId: recordings[which]!, seq, key: chunkObjectKey(SEED_PROJECT_ID, recordings[which]!, seq, randomUUID().replaceAll('-', '')),
        bytes: 100 + seq, rawBytes: 400, firstAt: now - 20_000, lastAt: now - 1000, receivedAt: now, sessionId: `s${which}`, user: { id: `u${which}` },
        release: '1.0.0', environment: 'production', pages: [`/p${seq % 3}`], clicks: 1 + (seq % 4), errors: seq % 5 === 0 ? 1 : 0,
      }
      sent.set(`${chunk.recordingId}|${seq}`, chunk)
      await stack.redis.zadd(keys.recordingPuts, now, chunk.key)
      for (let copy = 0; copy < (n % 7 === 0 ? 2 : 1); copy++) {
        await stack.redis.xadd(keys.recordings, '*', ...chunkFields(chunk))
        entries++
      }
      await sleep(20)
    }
  })()
  await sleep(2000)

  // Catch the recorder mid-batch for certain: hold the chunk table so its next insert waits with its entries read.
  const blocker = new pg.Client({ connectionString: stack.databaseUrl, application_name: 'fault-suite-blocker' })
  blocker.on('error', () => {})
  await blocker.connect()
  t.teardown(() => blocker.end().catch(() => {}))
  await blocker.query('BEGIN')
  await blocker.query('LOCK TABLE recording_chunks IN SHARE MODE')
  let pending = 0
  for (const deadline = Date.now() + patience(10_000); pending === 0 && Date.now() < deadline; await sleep(20)) {
    pending = Number(((await stack.redis.xpending(keys.recordings, GROUPS.recorder)) as [number])[0])
  }
  t.ok(pending > 0, `the recorder had ${pending} entries of a batch pending when the database went away`)
  await refuseConnections(stack.databaseUrl, true)
  await sleep(3000)
  const health = await textOf(stack.health)
  await sleep(3000)
  await refuseConnections(stack.databaseUrl, false)
  await sleep(3000)
  producing = false
  await producer

  const deadline = Date.now() + patience(60_000)
  let stored = 0
  for (; Date.now() < deadline; await sleep(250)) {
    stored = (await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM recording_chunks')).rows[0]!.n
    const depth = await queueDepth(stack.redis, keys.recordings, GROUPS.recorder)
    if (stored === sent.size && depth.eligible === 0 && depth.heldBack === 0) break
  }
  t.equal(stored, sent.size, `every chunk is stored once (${sent.size} chunks in ${entries} entries)`)
  const { rows } = await stack.db.query<{ id: string; chunks: number; max_seq: number; clicks: number; errors: number; bytes: string; rows: number }>(
    `SELECT r.id, r.chunks, r.max_seq, r.clicks, r.errors, r.bytes, (SELECT count(*)::int FROM recording_chunks c WHERE c.recording_id = r.id) AS rows FROM recordings r`,
  )
  t.equal(rows.length, RECORDINGS, 'one row per recording')
  const wrong = rows.filter((row) => {
    const chunks = [...sent.values()].filter((chunk) => chunk.recordingId === row.id)
    const sum = (field: 'clicks' | 'errors' | 'bytes'): number => chunks.reduce((total, chunk) => total + chunk[field], 0)
    return row.chunks !== chunks.length || row.rows !== chunks.length || row.max_seq !== chunks.length - 1 || row.clicks !== sum('clicks') || row.errors !== sum('errors') || Number(row.bytes) !== sum('bytes')
  })
  t.same(wrong, [], 'each recording counts its chunks, clicks, errors and bytes once, whatever was delivered twice or held through the outage')
  t.equal(await stack.redis.zcard(keys.recordingPuts), 0, 'every key left the ledger')
  t.equal(await stack.redis.xlen(`${keys.recordings}:dead:${GROUPS.recorder}`), 0, 'nothing was dead-lettered')
  t.match(health, /^status: waiting$/m, 'worker health said it was waiting during the refusal')
  t.match(health, /^service recorder: waiting .*waiting_for=database/m, 'the recorder among what waited')
  t.equal(linesMatching(stack.output(), /recorder consumer error/), 0, 'no batch failed as an error')
  t.equal(linesMatching(stack.output(), /recordings stream entry is malformed/), 0, 'no entry was skipped')
  t.same(await stack.restarts(), { ingress: 0, worker: 0 }, 'nothing was restarted')
  t.comment(`recorder under a refusal: logged ${warningsIn(stack.output()).join('; ') || 'no warning'}`)
  t.equal(await stack.stop(), 0, 'Ctrl-C stops svc up cleanly afterwards')
})
