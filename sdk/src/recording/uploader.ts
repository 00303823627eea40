/**
 * Sends a recording's chunks to POST /api/v1/recordings, in order, one at a time: gzipped once
 * (CompressionStream, or as they are where it is missing) and resent with the same number and body
 * until the service took them, after backoff on network errors and 5xx and after a 429's
 * retry_after. When the page goes away, what is unsent is handed to the browser with keepalive and
 * kept in sessionStorage, so the tab's next page sends whatever did not get out.
 */

/** A chunk as queued: its JSON text is fixed when its number is given, and never changes after. */
export interface Chunk {
  recordingId: string
  seq: number
  json: string
  /** The bytes sent, made once: gzip, or the JSON as UTF-8 where CompressionStream is missing. */
  body?: Promise<{ bytes: Uint8Array; gzip: boolean }>
  /** Handed to the browser with keepalive: it survives the page, so it is not sent again on unload. */
  keptAlive?: boolean
}

/** Chunks waiting at most; past that the oldest waiting one is dropped (a gap the replay notes). */
const MAX_WAITING = 20
const FIRST_RETRY_MS = 1000
const MAX_RETRY_MS = 60_000
/** Browsers refuse keepalive bodies past 64 KB in flight per page, and the events share that. */
const KEEPALIVE_MAX_BYTES = 60_000
const UNSENT_KEY = 'svc.recording.unsent'
/** What the next page may inherit: well inside sessionStorage's 5 MB, which the app shares. */
const MAX_SAVED_CHARS = 1_000_000

type Outcome = 'done' | 'retry' | 'paused'

export class Uploader {
  readonly #url: string
  readonly #apiKey: string
  readonly #fetch: typeof fetch
  readonly #log: (message: string) => void
  #queue: Chunk[] = []
  #busy = false
  #timer: ReturnType<typeof setTimeout> | undefined
  #failures = 0
  #pausedUntil = 0
  /** Whether the queue was saved for the next page: then every change is saved too. */
  #saved = false

  constructor(url: string, apiKey: string, fetchImpl: typeof fetch, log: (message: string) => void) {
    this.#url = url
    this.#apiKey = apiKey
    this.#fetch = fetchImpl
    this.#log = log
    this.#queue = restore()
    this.#saved = this.#queue.length > 0
    addEventListener('online', () => this.#pump())
    this.#pump()
  }

  /** Queues a chunk and starts sending. */
  add(chunk: Chunk): void {
    this.#queue.push(chunk)
    if (this.#queue.length > MAX_WAITING) {
      // The chunk being sent stays: it may already be stored, and its answer is on the way.
      const dropped = this.#queue.splice(this.#busy ? 1 : 0, 1)[0]!
      this.#log(`recording: too many chunks waiting; dropped chunk ${dropped.seq}`)
    }
    if (this.#saved) this.#save()
    this.#pump()
  }

  /**
   * The page is hidden (maybe for good): keep what is unsent for the tab's next page, and when it
   * is unloading hand what fits to the browser with keepalive now, uncompressed, since gzip is
   * asynchronous and the page may not run again.
   */
  onHide(unloading: boolean): void {
    this.#save()
    if (!unloading) {
      this.#retryNow()
      return
    }
    if (Date.now() < this.#pausedUntil) return // rate limited: the next page sends them
    let budget = KEEPALIVE_MAX_BYTES
    for (const chunk of this.#queue) {
      if (chunk.keptAlive) continue
      const bytes = new TextEncoder().encode(chunk.json)
      if ((budget -= bytes.byteLength) < 0) break
      chunk.keptAlive = true
      this.#post(bytes, false, true).then(
        (response) => {
          if (response.ok) this.#settle(chunk)
          else chunk.keptAlive = false
        },
        () => (chunk.keptAlive = false),
      )
    }
  }

  /** A send waiting out its backoff goes now (the page is being hidden); a 429's pause is kept. */
  #retryNow(): void {
    if (this.#timer === undefined || Date.now() < this.#pausedUntil) return
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#pump()
  }

  #pump(): void {
    if (this.#busy || this.#timer !== undefined || this.#queue.length === 0) return
    const wait = this.#pausedUntil - Date.now()
    if (wait > 0) return this.#schedule(wait)
    if (typeof navigator !== 'undefined' && navigator.onLine === false) return // the 'online' event resumes
    const chunk = this.#queue[0]!
    this.#busy = true
    this.#send(chunk)
      .catch((): Outcome => 'retry')
      .then((outcome) => {
        this.#busy = false
        if (outcome === 'done') {
          this.#settle(chunk)
          this.#failures = 0
          return this.#pump()
        }
        if (outcome === 'paused') return this.#pump()
        this.#failures++
        const backoff = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (this.#failures - 1)) * (0.8 + Math.random() * 0.4)
        this.#schedule(Math.max(backoff, this.#pausedUntil - Date.now()))
      })
  }

  async #send(chunk: Chunk): Promise<Outcome> {
    chunk.body ??= encode(chunk.json)
    const { bytes, gzip } = await chunk.body
    // keepalive only while hidden: it shares a small per-page quota with the error events.
    const keepalive = typeof document !== 'undefined' && document.visibilityState === 'hidden' && bytes.byteLength <= KEEPALIVE_MAX_BYTES
    chunk.keptAlive = keepalive
    const response = await this.#post(bytes, gzip, keepalive).catch((error: unknown) => {
      chunk.keptAlive = false
      throw error
    })
    if (response.ok) return 'done'
    chunk.keptAlive = false
    if (response.status === 429 || response.status >= 500) {
      const answer = (await response.json().catch(() => ({}))) as { retry_after?: unknown }
      const seconds = Number(answer.retry_after ?? response.headers.get('Retry-After') ?? (response.status === 429 ? 60 : 0))
      if (seconds > 0 && Number.isFinite(seconds)) this.#pausedUntil = Date.now() + Math.min(seconds, 3600) * 1000
      return response.status === 429 ? 'paused' : 'retry'
    }
    this.#log(`recording: chunk ${chunk.seq} refused with ${response.status}; not sent again`)
    return 'done'
  }

  #post(bytes: Uint8Array, gzip: boolean, keepalive: boolean): Promise<Response> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-API-Key': this.#apiKey }
    if (gzip) headers['Content-Encoding'] = 'gzip'
    return this.#fetch.call(window, this.#url, { method: 'POST', headers, body: bytes as BodyInit, credentials: 'omit', mode: 'cors', keepalive })
  }

  /** The service has the chunk (or refused it for good): forget it. */
  #settle(chunk: Chunk): void {
    const at = this.#queue.indexOf(chunk)
    if (at === -1) return
    this.#queue.splice(at, 1)
    if (this.#saved) this.#save()
  }

  #schedule(ms: number): void {
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.#pump()
    }, ms)
  }

  #save(): void {
    let budget = MAX_SAVED_CHARS
    const kept = this.#queue.filter((chunk) => (budget -= chunk.json.length) >= 0).map((chunk) => [chunk.recordingId, chunk.seq, chunk.json])
    this.#saved = kept.length > 0
    try {
      if (kept.length) sessionStorage.setItem(UNSENT_KEY, JSON.stringify(kept))
      else sessionStorage.removeItem(UNSENT_KEY)
    } catch {
      // storage full or blocked: what the keepalive sends do not carry is lost with the page
    }
  }
}

/** The chunks an earlier page of this tab left unsent. */
function restore(): Chunk[] {
  try {
    const saved = JSON.parse(sessionStorage.getItem(UNSENT_KEY) ?? '[]') as unknown
    if (!Array.isArray(saved)) return []
    return saved
      .filter((item): item is [string, number, string] => Array.isArray(item) && typeof item[0] === 'string' && Number.isInteger(item[1]) && typeof item[2] === 'string')
      .map(([recordingId, seq, json]) => ({ recordingId, seq, json }))
  } catch {
    return []
  }
}

async function encode(json: string): Promise<{ bytes: Uint8Array; gzip: boolean }> {
  if (typeof CompressionStream === 'function') {
    try {
      const stream = new Blob([json]).stream().pipeThrough(new CompressionStream('gzip'))
      return { bytes: new Uint8Array(await new Response(stream).arrayBuffer()), gzip: true }
    } catch {
      // an engine whose stream support is partial: send it as it is
    }
  }
  return { bytes: new TextEncoder().encode(json), gzip: false }
}
