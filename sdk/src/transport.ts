/**
 * Sends events to the service: credentials omitted, queued while offline or refused for a while,
 * retried with backoff, paused for as long as a 429's retry_after says, and flushed with keepalive
 * when the page is hidden so an error just before leaving still arrives.
 */

/** Events kept waiting at most; the oldest go first when more arrive. */
const MAX_QUEUE = 30
const FIRST_RETRY_MS = 1000
const MAX_RETRY_MS = 60_000
/** Browsers refuse keepalive bodies past 64 KB in total. */
const KEEPALIVE_MAX_BYTES = 60_000
const PINGED_KEY = 'svc.pinged'

/**
 * Tells the service the SDK runs in a browser (POST /api/v1/ingest/ping), once per tab session:
 * the flag is set only after the service answered, so a ping lost to an outage is sent on a later load.
 */
export function pingOnce(endpoint: string, apiKey: string, fetchImpl: typeof fetch): void {
  try {
    if (sessionStorage.getItem(PINGED_KEY)) return
  } catch {
    // storage blocked: every page load pings then, which is harmless (a ping changes nothing twice)
  }
  fetchImpl
    .call(window, `${endpoint}/api/v1/ingest/ping`, { method: 'POST', headers: { 'X-API-Key': apiKey }, credentials: 'omit', mode: 'cors', keepalive: true })
    .then((response) => {
      if (response.ok) sessionStorage.setItem(PINGED_KEY, '1')
    })
    .catch(() => {
      // a signal, not data: nothing to retry
    })
}

export class Transport {
  readonly #url: string
  readonly #apiKey: string
  readonly #fetch: typeof fetch
  readonly #log: (message: string) => void
  #queue: string[] = []
  #busy = false
  #timer: ReturnType<typeof setTimeout> | undefined
  #failures = 0
  #pausedUntil = 0

  constructor(url: string, apiKey: string, fetchImpl: typeof fetch, log: (message: string) => void) {
    this.#url = url
    this.#apiKey = apiKey
    this.#fetch = fetchImpl
    this.#log = log
    addEventListener('online', () => this.#pump())
    const hidden = (): void => {
      if (document.visibilityState === 'hidden') this.flushOnHide()
    }
    document.addEventListener('visibilitychange', hidden)
    addEventListener('pagehide', () => this.flushOnHide())
  }

  /** Queues one event body and starts sending. */
  send(body: string): void {
    this.#queue.push(body)
    if (this.#queue.length > MAX_QUEUE) {
      this.#queue.shift()
      this.#log('queue full: dropped the oldest waiting event')
    }
    this.#pump()
  }

  /** Events still waiting (for tests and debugging). */
  get waiting(): number {
    return this.#queue.length
  }

  /** The page may be going away: hand every waiting event to the browser with keepalive. */
  flushOnHide(): void {
    if (Date.now() < this.#pausedUntil) return
    // The event already in flight stays where it is: sending it twice would count it twice.
    const held = this.#busy ? this.#queue.slice(0, 1) : []
    const rest = this.#queue.slice(held.length)
    let budget = KEEPALIVE_MAX_BYTES
    let fits = 0
    while (fits < rest.length && (budget -= rest[fits]!.length) >= 0) fits++
    const sending = rest.slice(0, fits)
    this.#queue = [...held, ...rest.slice(fits)]
    for (const body of sending) {
      this.#post(body, true).then(
        (status) => {
          if (status === 429 || status >= 500) this.#queue.push(body)
        },
        () => this.#queue.push(body),
      )
    }
  }

  #post(body: string, keepalive: boolean): Promise<number> {
    return this.#fetch
      .call(window, this.#url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': this.#apiKey },
        body,
        credentials: 'omit',
        mode: 'cors',
        keepalive,
      })
      .then(async (response) => {
        if (response.status === 429) {
          const answer = (await response.json().catch(() => ({}))) as { retry_after?: number }
          const seconds = Number(answer.retry_after ?? response.headers.get('Retry-After') ?? 60)
          this.#pausedUntil = Date.now() + (Number.isFinite(seconds) && seconds > 0 ? seconds : 60) * 1000
        }
        return response.status
      })
  }

  #schedule(ms: number): void {
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.#pump()
    }, ms)
  }

  #pump(): void {
    if (this.#busy || this.#timer !== undefined || this.#queue.length === 0) return
    const wait = this.#pausedUntil - Date.now()
    if (wait > 0) return this.#schedule(wait)
    if (typeof navigator !== 'undefined' && navigator.onLine === false) return // the 'online' event resumes
    const body = this.#queue[0]!
    this.#busy = true
    // keepalive on every send that fits, so an event in flight survives the page unloading.
    this.#post(body, body.length <= KEEPALIVE_MAX_BYTES)
      .then(
        (status) => {
          if (status === 429) return 'retry-after'
          if (status >= 500) return 'retry'
          if (status >= 400) this.#log(`event refused with ${status}; not retried`)
          return 'done'
        },
        () => 'retry' as const,
      )
      .then((outcome) => {
        this.#busy = false
        if (outcome === 'done') {
          if (this.#queue[0] === body) this.#queue.shift()
          this.#failures = 0
          return this.#pump()
        }
        if (outcome === 'retry-after') return this.#pump()
        this.#failures++
        const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (this.#failures - 1)) * (0.8 + Math.random() * 0.4)
        this.#schedule(delay)
      })
  }
}
