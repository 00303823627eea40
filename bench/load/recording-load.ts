/**
 * bench:ingest's recording load: distinct session-recording chunks of about 100 KB of rrweb-like
 * JSON each (a full snapshot of a page, then mutations, mouse moves, scrolls, clicks and inputs),
 * gzipped as the SDK's CompressionStream sends them, and a wrk script that POSTs them in turn to
 * /api/v1/recordings. Each body is its own file: gzip is binary, so they cannot be lines of one.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'

export interface RecordingLoad {
  /** The wrk script. */
  script: string
  chunks: number
  /** Mean bytes of a chunk before compression, and as sent. */
  rawBytes: number
  wireBytes: number
  remove(): void
}

/** A small deterministic generator, so every run sends the same chunks. */
function generator(seed: number): () => number {
  let state = seed >>> 0 || 1
  return () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 2 ** 32
  }
}

const WORDS = ['cart', 'checkout', 'product', 'price', 'total', 'shipping', 'account', 'search', 'filter', 'review', 'size', 'colour', 'delivery', 'order', 'basket', 'offer']
const TAGS = ['div', 'span', 'a', 'button', 'li', 'img', 'p', 'input', 'section', 'h2']

/** One chunk body of at least targetBytes of JSON: a recording's seq-th chunk, seq 0 holding the page's full snapshot. */
export function realisticChunk(index: number, targetBytes = 100 * 1024): string {
  const random = generator(index * 7919 + 17)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!
  const text = (words: number): string => Array.from({ length: words }, () => pick(WORDS)).join(' ')
  let id = 1
  const node = (depth: number): Record<string, unknown> => {
    const tagName = pick(TAGS)
    const childNodes = depth > 0 ? Array.from({ length: 1 + Math.floor(random() * 4) }, () => node(depth - 1)) : [{ type: 3, textContent: text(3 + Math.floor(random() * 6)), id: id++ }]
    return { type: 2, tagName, attributes: { class: `${pick(WORDS)}-${pick(WORDS)} c${Math.floor(random() * 999)}`, ...(tagName === 'a' ? { href: `/${pick(WORDS)}/${Math.floor(random() * 1e4)}` } : {}) }, childNodes, id: id++ }
  }
  let time = 1_764_200_000_000 + index * 30_000
  const events: Array<Record<string, unknown>> = [{ type: 4, timestamp: time, data: { href: `https://shop.example/${pick(WORDS)}?page=${index % 20}`, width: 1280, height: 720 } }]
  events.push({ type: 2, timestamp: ++time, data: { node: { type: 0, childNodes: [node(4)], id: id++ }, initialOffset: { top: 0, left: 0 } } })
  let size = JSON.stringify(events).length
  while (size < targetBytes) {
    time += 16 + Math.floor(random() * 400)
    const roll = random()
    let event: Record<string, unknown>
    if (roll < 0.45) event = { type: 3, timestamp: time, data: { source: 1, positions: Array.from({ length: 1 + Math.floor(random() * 8) }, (_, i) => ({ x: Math.floor(random() * 1280), y: Math.floor(random() * 720), id: 1 + Math.floor(random() * id), timeOffset: -i * 50 })) } }
    else if (roll < 0.7) event = { type: 3, timestamp: time, data: { source: 0, texts: [], attributes: [{ id: 1 + Math.floor(random() * id), attributes: { class: `${pick(WORDS)} active` } }], removes: [], adds: random() < 0.5 ? [{ parentId: 1 + Math.floor(random() * id), nextId: null, node: node(1) }] : [] } }
    else if (roll < 0.82) event = { type: 3, timestamp: time, data: { source: 3, id: 1, x: 0, y: Math.floor(random() * 4000) } }
    else if (roll < 0.92) event = { type: 3, timestamp: time, data: { source: 2, type: Math.floor(random() * 3), id: 1 + Math.floor(random() * id), x: Math.floor(random() * 1280), y: Math.floor(random() * 720) } }
    else event = { type: 3, timestamp: time, data: { source: 5, text: '*'.repeat(1 + Math.floor(random() * 12)), isChecked: false, id: 1 + Math.floor(random() * id) } }
    events.push(event)
    size += JSON.stringify(event).length + 1
  }
  return JSON.stringify({ recording_id: randomUUID(), seq: 0, session_id: `bench-${index}`, sdk_version: '0.1.0', release: 'shop@1.0.0', environment: 'production', events })
}

/** Writes count distinct gzipped chunks and the wrk script that POSTs them in turn with headers (Content-Encoding: gzip added). */
export function writeRecordingLoad(count: number, headers: Record<string, string>): RecordingLoad {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-recordings-'))
  let raw = 0
  let wire = 0
  for (let i = 0; i < count; i++) {
    const body = realisticChunk(i)
    const gzipped = gzipSync(body)
    raw += Buffer.byteLength(body)
    wire += gzipped.length
    writeFileSync(join(dir, `${i}.json.gz`), gzipped)
  }
  const luaHeaders = `{ ${Object.entries({ ...headers, 'Content-Encoding': 'gzip' }).map(([k, v]) => `[${JSON.stringify(k)}] = ${JSON.stringify(v)}`).join(', ')} }`
  const script = join(dir, 'recordings.lua')
  writeFileSync(
    script,
    [
      'local requests = {}',
      'local i = 0',
      'init = function(args)',
      `  for n = 0, ${count - 1} do`,
      `    local file = io.open(${JSON.stringify(`${dir}/`)} .. n .. ".json.gz", "rb")`,
      '    local body = file:read("*a")',
      '    file:close()',
      `    requests[#requests + 1] = wrk.format("POST", wrk.path, ${luaHeaders}, body)`,
      '  end',
      'end',
      'request = function()',
      '  i = i % #requests + 1',
      '  return requests[i]',
      'end',
    ].join('\n'),
  )
  return { script, chunks: count, rawBytes: raw / count, wireBytes: wire / count, remove: () => rmSync(dir, { recursive: true, force: true }) }
}
