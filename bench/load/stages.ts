/**
 * The split of an accepted event's time by stage, for bench:ingest: each stage of the accept path
 * run on its own, in this process, over the same 2 KB bodies the load sends, and timed (measured,
 * not guessed). Per event: the body's copy out of uWS's buffer and its decoding, JSON.parse, the
 * schema's check, the stored id; per pack of perEntry events (as the accepted rounds averaged),
 * shared by its events: the records joined and compressed, and the enqueue Lua call's round trip
 * to Redis (rate counters, project counters, XADD), with Redis's own time in the script read from
 * INFO commandstats. The HTTP layer's own share is what the raw route costs per request (one
 * core's second over its rate).
 */
import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import { EventQueue } from '../../services/ingress/event-queue.js'
import { storedEventId } from '../../services/ingress/event-id.js'
import { parseEvent } from '../../services/ingress/validate-event.js'
import { packedEntryFields, packedRecord } from '../../shared/domain/event.js'
import type { StreamKeys } from '../../shared/redis.js'

export interface StageSplit {
  /** Microseconds per event, by stage: first the ingress thread's own CPU stages (ingressStages of them), then Redis's. */
  perEvent: Array<[stage: string, micros: number]>
  ingressStages: number
}

const PROJECT = '00000000-0000-4000-8000-0000000000aa'

/** Microseconds Redis has spent running scripts (EVALSHA and EVAL), by INFO commandstats. */
async function scriptMicros(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats')
  let micros = 0
  for (const match of info.matchAll(/^cmdstat_(?:evalsha|eval):calls=\d+,usec=(\d+)/gm)) micros += Number(match[1])
  return micros
}

/** Runs fn over every index until at least minMs passed; answers microseconds per call. */
function timePer(count: number, minMs: number, fn: (i: number) => void): number {
  for (let i = 0; i < count; i++) fn(i) // warm-up: compiled before it is timed
  let calls = 0
  const started = performance.now()
  while (performance.now() - started < minMs) {
    for (let i = 0; i < count; i++) fn(i)
    calls += count
  }
  return ((performance.now() - started) * 1000) / calls
}

/** Measures each stage over bodies; perEntry events share a pack and a Lua call. */
export async function measureStages(bodies: readonly string[], perEntry: number, redis: Redis, keys: StreamKeys): Promise<StageSplit> {
  // As uWS lends a body: an ArrayBuffer, viewed (not copied) by Buffer.from, then decoded.
  const wire = bodies.map((body) => {
    const bytes = Buffer.from(body)
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
  })
  let sink = 0
  const read = timePer(wire.length, 300, (i) => {
    sink += Buffer.from(wire[i]!).toString('utf8').length
  })
  const parse = timePer(bodies.length, 300, (i) => {
    sink += Object.keys(JSON.parse(bodies[i]!) as object).length
  })
  const events = bodies.map((body) => JSON.parse(body) as { event_id?: string })
  const parseAndCheck = timePer(bodies.length, 300, (i) => {
    sink += parseEvent(bodies[i]!).timestamp.length
  })
  const id = timePer(events.length, 300, (i) => {
    sink += storedEventId(PROJECT, events[i]!.event_id).length
  })
  const n = Math.max(1, Math.round(perEntry))
  const envelope = (i: number): { id: string; projectId: string; keyId: string; receivedAt: number; body: string } => ({ id: randomUUID(), projectId: PROJECT, keyId: 'benchkey0001', receivedAt: Date.now(), body: bodies[i % bodies.length]! })
  const packs = Array.from({ length: 50 }, (_, p) => Array.from({ length: n }, (_, j) => envelope(p * n + j)))
  const pack = timePer(packs.length, 500, (p) => {
    sink += packedEntryFields(packs[p]!.map(packedRecord))[5]!.length
  }) / n
  // The Lua call: a queue of its own on the bench's Redis and key prefix, n events per turn; the stream is emptied after.
  const queue = new EventQueue(redis, keys, { perKey: 1e9, perProjectDefault: 0 })
  const turns = 200
  const redisBefore = await scriptMicros(redis)
  const started = performance.now()
  for (let turn = 0; turn < turns; turn++) await Promise.all(packs[turn % packs.length]!.map((e) => queue.enqueue(e)))
  const call = ((performance.now() - started) * 1000) / (turns * n)
  const inRedis = ((await scriptMicros(redis)) - redisBefore) / (turns * n)
  await redis.del(keys.events)
  if (sink < 0) console.log(sink) // keeps the work from being optimised away
  return {
    perEvent: [
      ['body copied out of uWS and decoded', read],
      ['JSON.parse', parse],
      ['schema check (ajv)', Math.max(0, parseAndCheck - parse)],
      ['stored id', id],
      [`packed and compressed (per event of a ${n}-event pack)`, pack],
      [`Redis's own time in the enqueue script (INFO commandstats, server-wide: anyone else's scripts on this Redis count too; another process, on the same cores)`, inRedis],
      [`enqueue call to Redis, packing included (per event of a ${n}-event call; wall time, overlapped with other requests in the ingress)`, call],
    ],
    ingressStages: 5,
  }
}
