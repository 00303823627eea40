/**
 * A small fetch for requests to user-supplied URLs (chat webhooks), built on node:http(s) so every
 * connection goes through the address guard's lookup: the address checked is the address used.
 * Global fetch cannot take a lookup without the undici package, which is why this exists. It
 * never follows a redirect (a public URL may redirect to a private one), caps the response body
 * and the time, and its errors never contain the URL: callers can show them.
 */
import http from 'node:http'
import https from 'node:https'
import { AddressRefused, checkOutboundUrl, guardedLookup, type GuardOptions, type UrlRefusal } from './address-guard.js'

/** What a request failed on, without the URL: safe to log and show. */
export class GuardedFetchError extends Error {
  constructor(
    /** refused: the URL or its address may not be requested; redirect: the answer was a 3xx; timeout, network, too_large. */
    readonly reason: 'refused' | 'redirect' | 'timeout' | 'network' | 'too_large',
    message: string,
    /** Why the URL was refused (reason refused), or the system error code (reason network). */
    readonly detail = '',
  ) {
    super(message)
    this.name = 'GuardedFetchError'
  }
}

/** Options of createGuardedFetch. */
export interface GuardedFetchOptions extends GuardOptions {
  readonly timeoutMs: number
  /** Larger answers fail with too_large; webhooks answer a few bytes. */
  readonly maxResponseBytes: number
}

/** The subset of RequestInit the webhook clients use. */
export interface GuardedRequestInit {
  readonly method?: string
  readonly headers?: Record<string, string>
  readonly body?: string | FormData
  readonly redirect?: 'error' | 'follow' | 'manual'
  readonly signal?: AbortSignal | null
}

/** A fetch-shaped function plus close(), which drops the connection pool. */
export interface GuardedFetch {
  (input: string | URL, init?: GuardedRequestInit): Promise<Response>
  close(): void
}

const REFUSAL_TEXT: Record<UrlRefusal, string> = {
  malformed: 'is not a valid URL',
  scheme: 'must start with https://',
  credentials: 'must not contain a user name or password',
  'not-an-ip': 'does not name a reachable host',
  public: 'was refused',
  unspecified: 'points to an unspecified address',
  loopback: 'points to this machine (loopback)',
  private: 'points to a private network address',
  shared: 'points to a carrier-grade NAT address',
  'link-local': 'points to a link-local address',
  multicast: 'points to a multicast address',
  documentation: 'points to a documentation-only address',
  benchmarking: 'points to a benchmarking address',
  'ipv4-mapped': 'points to an IPv4-mapped IPv6 address',
  reserved: 'points to a reserved address',
}

/** Creates a fetch whose connections are checked by the address guard. */
export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  // Own agents, not the global ones: a pooled socket opened under allowPrivate must never be
  // reused by a client that forbids private addresses. No keep-alive: webhooks are rare.
  const lookup = options.allowPrivate ? undefined : guardedLookup()
  const agents = { 'http:': new http.Agent({ keepAlive: false, lookup }), 'https:': new https.Agent({ keepAlive: false, lookup }) }
  const fetch = (input: string | URL, init: GuardedRequestInit = {}): Promise<Response> => {
    const check = checkOutboundUrl(String(input), options)
    if (!check.ok) return Promise.reject(new GuardedFetchError('refused', `the URL ${REFUSAL_TEXT[check.reason]}`, check.reason))
    if (init.body !== undefined && typeof init.body !== 'string') {
      return Promise.reject(new GuardedFetchError('network', 'only text request bodies are supported'))
    }
    return send(check.url, init, agents, options)
  }
  return Object.assign(fetch, {
    close: () => {
      agents['http:'].destroy()
      agents['https:'].destroy()
    },
  })
}

function send(url: URL, init: GuardedRequestInit, agents: Record<'http:' | 'https:', http.Agent>, options: GuardedFetchOptions): Promise<Response> {
  const transport = url.protocol === 'https:' ? https : http
  const timeout = AbortSignal.timeout(options.timeoutMs)
  const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout
  const body = init.body as string | undefined
  return new Promise((resolve, reject) => {
    const request = transport.request(url, { method: init.method ?? 'GET', headers: init.headers, agent: agents[url.protocol as 'http:' | 'https:'], signal })
    request.on('error', (error) => reject(describe(error, timeout.aborted, options.timeoutMs)))
    request.on('response', (response) => {
      const status = response.statusCode ?? 0
      if (status >= 300 && status < 400 && init.redirect !== 'manual') {
        response.destroy()
        // Never followed, whatever redirect asked for: the target was not checked and may be private.
        return reject(new GuardedFetchError('redirect', `the server answered ${status} with a redirect, which is not followed`))
      }
      const chunks: Buffer[] = []
      let size = 0
      response.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > options.maxResponseBytes) {
          response.destroy()
          return reject(new GuardedFetchError('too_large', `the answer was larger than ${options.maxResponseBytes} bytes`))
        }
        chunks.push(chunk)
      })
      response.on('error', (error) => reject(describe(error, timeout.aborted, options.timeoutMs)))
      response.on('end', () => {
        const headers = new Headers()
        for (const [name, value] of Object.entries(response.headers)) {
          for (const one of Array.isArray(value) ? value : [value ?? '']) headers.append(name, one)
        }
        // Response refuses statuses outside 200-599 (and bodies on 204/304); such answers are not webhooks.
        const empty = status === 204 || status === 304
        if (status < 200 || status > 599) return reject(new GuardedFetchError('network', `the server answered an invalid status ${status}`))
        resolve(new Response(empty ? null : Buffer.concat(chunks), { status, statusText: response.statusMessage ?? '', headers }))
      })
    })
    request.end(body)
  })
}

/** Turns a socket or abort error into one that names no URL. */
function describe(error: Error & { code?: string }, timedOut: boolean, timeoutMs: number): GuardedFetchError {
  if (error instanceof GuardedFetchError) return error
  if (error instanceof AddressRefused) return new GuardedFetchError('refused', `the URL ${REFUSAL_TEXT[error.kind]}`, error.kind)
  if (timedOut) return new GuardedFetchError('timeout', `no answer within ${Math.round(timeoutMs / 1000)} s`)
  if (error.name === 'AbortError') return new GuardedFetchError('network', 'the request was cancelled')
  // Only the code: system error messages can carry the host and port, and callers show this text.
  const code = typeof error.code === 'string' && /^[A-Z0-9_]+$/.test(error.code) ? error.code : 'unknown error'
  return new GuardedFetchError('network', `the connection failed (${code})`, code)
}
