/**
 * Recording chunks as the SDK sends them to POST /api/v1/recordings (docs/recordings.md, "The
 * wire"), and what a test reads back of what the ingress stored: stream entries, ledger keys and
 * objects in the folder store.
 */
import { randomUUID } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { TestStack } from '../stack.js'

/** rrweb event numbers (EventType, IncrementalSource, MouseInteractions). */
export const RRWEB = { fullSnapshot: 2, incremental: 3, meta: 4, custom: 5, mouseInteraction: 2, click: 2, mouseUp: 0, scroll: 3 } as const

/** A chunk body: a meta event per href, a full snapshot, clicks and an error, with overrides at the top level. */
export function sampleChunk(overrides: Record<string, unknown> = {}, start = 1_764_200_000_000): Record<string, unknown> {
  return {
    recording_id: randomUUID(),
    seq: 0,
    session_id: 'session-1',
    sdk_version: '0.1.0',
    events: [
      { type: RRWEB.meta, timestamp: start, data: { href: 'https://shop.example/cart?step=1#top', width: 1280, height: 720 } },
      { type: RRWEB.fullSnapshot, timestamp: start + 1, data: { node: { type: 0, childNodes: [], id: 1 }, initialOffset: { top: 0, left: 0 } } },
      { type: RRWEB.incremental, timestamp: start + 500, data: { source: RRWEB.mouseInteraction, type: RRWEB.click, id: 12, x: 10, y: 20 } },
      { type: RRWEB.incremental, timestamp: start + 510, data: { source: RRWEB.mouseInteraction, type: RRWEB.mouseUp, id: 12, x: 10, y: 20 } },
      { type: RRWEB.incremental, timestamp: start + 520, data: { source: RRWEB.scroll, id: 1, x: 0, y: 300 } },
      { type: RRWEB.meta, timestamp: start + 2_000, data: { href: 'https://shop.example/checkout', width: 1280, height: 720 } },
      { type: RRWEB.custom, timestamp: start + 2_500, data: { tag: 'svc.error', payload: { event_id: randomUUID(), message: 'boom' } } },
      { type: RRWEB.custom, timestamp: start + 2_600, data: { tag: 'something.else', payload: {} } },
      { type: RRWEB.meta, timestamp: start + 3_000, data: { href: 'https://shop.example/cart?step=1', width: 1280, height: 720 } },
      // Out of order on purpose: first and last are the earliest and latest, not the ends of the list.
      { type: RRWEB.incremental, timestamp: start - 40, data: { source: RRWEB.mouseInteraction, type: RRWEB.click, id: 3, x: 1, y: 1 } },
    ],
    ...overrides,
  }
}

/** An answer from the ingress: status, parsed body and headers. */
export interface Answer {
  status: number
  body: Record<string, unknown>
  headers: Headers
}

/** POSTs a chunk (an object is JSON-encoded; gzip: true compresses it as the SDK does) with the stack's ingest key unless headers say otherwise. */
export async function postChunk(stack: Pick<TestStack, 'baseUrl' | 'ingestKey'>, body: unknown, options: { gzip?: boolean; headers?: Record<string, string> } = {}): Promise<Answer> {
  const text = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body)
  const bytes = options.gzip ? gzipSync(text) : text
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey, ...(options.gzip ? { 'Content-Encoding': 'gzip' } : {}), ...options.headers }
  const response = await fetch(`${stack.baseUrl}/api/v1/recordings`, { method: 'POST', headers, body: bytes })
  const answer = await response.text()
  return { status: response.status, body: answer ? (JSON.parse(answer) as Record<string, unknown>) : {}, headers: response.headers }
}

/** The recordings stream's entries, oldest first, each as a field → value record. */
export async function streamEntries(stack: Pick<TestStack, 'redis' | 'keys'>): Promise<Array<Record<string, string>>> {
  const entries = (await stack.redis.xrange(stack.keys.recordings, '-', '+')) as Array<[string, string[]]>
  return entries.map(([, fields]) => Object.fromEntries(Array.from({ length: fields.length / 2 }, (_, i) => [fields[2 * i]!, fields[2 * i + 1]!])))
}

/** The ledger's keys with their scores (ms). */
export async function ledger(stack: Pick<TestStack, 'redis' | 'keys'>): Promise<Map<string, number>> {
  const flat = await stack.redis.zrange(stack.keys.recordingPuts, 0, -1, 'WITHSCORES')
  return new Map(Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i]!, Number(flat[2 * i + 1])]))
}

/** Object keys under the folder store's recordings/ (none when it was never made). */
export function storedObjects(stack: Pick<TestStack, 'config'>): string[] {
  const root = stack.config.objectStore.dir
  try {
    return readdirSync(join(root, 'recordings'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1))
      .sort()
  } catch {
    return []
  }
}

/** Stream entries, ledger keys and objects all at once: what "nothing stored" is checked against. */
export async function everythingStored(stack: Pick<TestStack, 'redis' | 'keys' | 'config'>): Promise<{ entries: number; ledger: number; objects: string[] }> {
  return { entries: (await streamEntries(stack)).length, ledger: (await ledger(stack)).size, objects: storedObjects(stack) }
}
