/**
 * The recorder's browser tests: a loopback capture server standing in for the service (it keeps
 * each request's headers and raw bytes, gunzips recording chunks, and answers as told: 202, 503
 * then 202, 429), a small page with inputs to record, and runners of test steps in Chromium and
 * Firefox ESR.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { gunzipSync } from 'node:zlib'
import type { Browser } from 'playwright-core'
import { FIREFOX } from '../../helpers/browser/browser.js'
import { patience } from '../../helpers/patience.js'
import { runSteps, type CaptureCounts, type Step } from './sdk-recording-steps.js'

interface Teardown {
  teardown(fn: () => unknown): void
}

export const INGEST_KEY = 'svc_pk_seede2e00001_DevOnlyIngestKeyNotASecret000001'

export interface RrwebEvent {
  type: number
  timestamp: number
  data: { tag?: string; payload?: { event_id?: string; message?: string }; href?: string }
}

export interface ChunkBody {
  recording_id: string
  seq: number
  session_id: string
  user?: { id?: string }
  release?: string
  environment?: string
  sdk_version: string
  events: RrwebEvent[]
}

export interface CapturedChunk {
  headers: IncomingHttpHeaders
  /** The page passed keepalive to fetch (the test page marks such sends with ?keepalive=1). */
  keepalive: boolean
  /** The bytes as they came over the wire. */
  raw: Buffer
  /** The body after Content-Encoding was undone. */
  text: string
  body: ChunkBody
  /** What the capture server answered. */
  status: number
  /** When it arrived (ms). */
  at: number
}

export interface CapturedEvent {
  headers: IncomingHttpHeaders
  text: string
  body: { event_id: string; session_id: string; recording_id?: string; error: { message: string } }
}

export interface Capture {
  /** The address the SDK is given as its endpoint. */
  url: string
  chunks: CapturedChunk[]
  events: CapturedEvent[]
  /** Answers for the next recording chunk requests, in order; 202 once they are used up. */
  answers: Array<{ status: number; body?: unknown }>
}

/** Starts the capture server on a free loopback port, closed with the test. */
export async function startCapture(t: Teardown): Promise<Capture> {
  const capture: Capture = { url: '', chunks: [], events: [], answers: [] }
  const cors = { 'Access-Control-Allow-Origin': '*' }
  const server = createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (part: Buffer) => parts.push(part))
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://capture')
      if (req.method === 'OPTIONS') {
        return void res.writeHead(204, { ...cors, 'Access-Control-Allow-Methods': 'POST', 'Access-Control-Allow-Headers': 'Content-Type, Content-Encoding, X-API-Key', 'Access-Control-Max-Age': '600' }).end()
      }
      if (url.pathname === '/__state') return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(counts(capture)))
      const raw = Buffer.concat(parts)
      if (url.pathname === '/api/v1/recordings') {
        const text = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')
        const body = JSON.parse(text) as ChunkBody
        const answer = capture.answers.shift() ?? { status: 202, body: { recording_id: body.recording_id, seq: body.seq } }
        capture.chunks.push({ headers: req.headers, keepalive: url.searchParams.get('keepalive') === '1', raw, text, body, status: answer.status, at: Date.now() })
        return void res.writeHead(answer.status, { ...cors, 'Content-Type': 'application/json' }).end(JSON.stringify(answer.body ?? {}))
      }
      if (url.pathname === '/api/v1/events') {
        const text = raw.toString('utf8')
        capture.events.push({ headers: req.headers, text, body: JSON.parse(text) as CapturedEvent['body'] })
        return void res.writeHead(202, { ...cors, 'Content-Type': 'application/json' }).end('{}')
      }
      res.writeHead(202, cors).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  server.unref()
  capture.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  return capture
}

function counts(capture: Capture): CaptureCounts {
  // Events of chunks sent again count once.
  const events = distinctChunks(capture).flatMap((chunk) => chunk.events)
  return {
    chunks: capture.chunks.length,
    events: capture.events.length,
    marked: events.filter((event) => event.type === 5 && event.data.tag === 'svc.error').length,
    snapshots: events.filter((event) => event.type === 2).length,
    inputs: events.filter((event) => event.type === 3 && (event.data as { source?: number }).source === 5).length,
    keepalive: capture.chunks.filter((chunk) => chunk.keepalive).length,
  }
}

/** The chunks as the service would keep them: the first copy of each (recording, seq), in seq order. */
export function distinctChunks(capture: Capture): ChunkBody[] {
  const kept = new Map<string, ChunkBody>()
  for (const chunk of capture.chunks) {
    const key = `${chunk.body.recording_id}/${chunk.body.seq}`
    if (!kept.has(key)) kept.set(key, chunk.body)
  }
  return [...kept.values()].sort((a, b) => a.seq - b.seq)
}

/**
 * A page with a text input, a password, a textarea, a svc-mask paragraph and a svc-block box, that
 * starts the SDK with config and records. It marks the recorder's keepalive sends in their URL,
 * so the capture server can tell them, and is ready once the recorder has started. more is HTML put
 * under the heading.
 */
export function recordingPage(config: Record<string, unknown>, more = ''): string {
  return `<!doctype html><html><head><title>Checkout</title></head><body>
<h1>Checkout</h1>${more}
<label>Name <input id="name" type="text" name="name"></label>
<label>Password <input id="pw" type="password" name="pw"></label>
<textarea id="note"></textarea>
<p class="svc-mask">masked-paragraph-text</p>
<div class="svc-block"><p>blocked-box-text</p></div>
<button id="save">Save</button>
<script type="module">
  import { init, setUser } from '/sdk/index.js'
  const pageFetch = window.fetch
  window.fetch = (url, options) => pageFetch(options && options.keepalive && String(url).endsWith('/api/v1/recordings') ? url + '?keepalive=1' : url, options)
  init(${JSON.stringify(config)})
  setUser({ id: 'user-7' })
  window.throwNow = (message) => setTimeout(() => { throw new Error(message) })
  // init loads the recorder on its own; loading the same module here tells when it has started.
  await import('/sdk/recording.js')
  await new Promise((resolve) => setTimeout(resolve))
  window.svcReady = true
</script></body></html>`
}

/** Runs the steps in a new Chromium context (its own sessionStorage). */
export async function driveChromium(browser: Browser, capture: Capture, steps: Step[]): Promise<string> {
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    await runSteps(page, steps, capture.url)
    return String(await page.evaluate('navigator.userAgent'))
  } finally {
    await context.close()
  }
}

/** Runs the steps in Firefox ESR, in a child process (sdk-recording-firefox-drive.ts). */
export async function driveFirefox(capture: Capture, steps: Step[]): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env }
  delete env.NODE_OPTIONS
  const driver = fileURLToPath(new URL('./sdk-recording-firefox-drive.ts', import.meta.url))
  if (!existsSync(FIREFOX)) throw new Error(`Firefox ESR is missing at ${FIREFOX}: sudo apt-get install firefox-esr (or sudo bash scripts/install-system-deps.sh)`)
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', driver, capture.url, JSON.stringify(steps)], { env, encoding: 'utf8', timeout: patience(90_000) })
  return stdout.trim()
}

/** Every chunk body, decompressed, and every event body, as one text to search. */
export function everythingSent(capture: Capture): string {
  return [...capture.chunks.map((chunk) => chunk.text), ...capture.events.map((event) => event.text)].join('\n')
}
