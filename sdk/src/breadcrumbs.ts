/**
 * The trail of what happened before an error: clicks, navigation, console output, and fetch/XHR
 * requests with method, status and duration. Every hook calls the page's own code first and never
 * lets an SDK failure reach it.
 */
import type { Breadcrumb } from './types.js'
import { stripUrl } from './url.js'

const MAX_BREADCRUMBS = 50
const MAX_MESSAGE = 300

export class BreadcrumbTrail {
  #items: Breadcrumb[] = []

  add(crumb: Omit<Breadcrumb, 'timestamp'>): void {
    this.#items.push({ ...crumb, message: crumb.message.slice(0, MAX_MESSAGE), timestamp: Date.now() })
    if (this.#items.length > MAX_BREADCRUMBS) this.#items.shift()
  }

  /** A copy of the trail, oldest first. */
  snapshot(): Breadcrumb[] {
    return this.#items.slice()
  }
}

/** Describes a clicked element as tag#id.class, the way a person would find it in the page. */
function describe(target: EventTarget | null): string {
  const element = target as Element | null
  if (!element || typeof element.tagName !== 'string') return '(unknown)'
  const id = element.id ? `#${element.id}` : ''
  const classes = typeof element.className === 'string' && element.className ? `.${element.className.trim().split(/\s+/).slice(0, 2).join('.')}` : ''
  return `${element.tagName.toLowerCase()}${id}${classes}`
}

function safely(fn: () => void): void {
  try {
    fn()
  } catch {
    // A breadcrumb is never worth an exception in the host page.
  }
}

/** Installs the hooks once; own requests (to the service) are recognised by isOwn and not recorded. */
export function instrument(trail: BreadcrumbTrail, isOwn: (url: string) => boolean): void {
  document.addEventListener('click', (event) => safely(() => trail.add({ type: 'click', message: describe(event.target) })), { capture: true, passive: true })

  for (const level of ['log', 'info', 'warn', 'error'] as const) {
    const original = console[level]
    console[level] = function (this: Console, ...args: unknown[]) {
      safely(() => trail.add({ type: 'console', message: args.map((a) => (typeof a === 'string' ? a : safeJson(a))).join(' '), data: { level } }))
      return original.apply(this, args)
    }
  }

  const navigated = (to: string | URL | null | undefined): void => safely(() => trail.add({ type: 'navigation', message: stripUrl(String(to ?? location.href)) }))
  for (const method of ['pushState', 'replaceState'] as const) {
    const original = history[method]
    history[method] = function (this: History, data: unknown, unused: string, url?: string | URL | null) {
      navigated(url ?? location.href)
      return original.call(this, data, unused, url)
    }
  }
  addEventListener('popstate', () => navigated(location.href))

  if (typeof fetch === 'function') {
    const original = fetch
    window.fetch = function (input: RequestInfo | URL, init?: RequestInit) {
      const url = typeof input === 'string' || input instanceof URL ? String(input) : input.url
      const method = (init?.method ?? (typeof input === 'object' && 'method' in input ? input.method : 'GET')).toUpperCase()
      const started = Date.now()
      const pending = original.call(window, input, init)
      if (isOwn(url)) return pending
      const record = (status: number | undefined): void => safely(() => trail.add({ type: 'http', message: `${method} ${stripUrl(url)}`, data: { method, status, duration_ms: Date.now() - started } }))
      pending.then((response) => record(response.status), () => record(undefined))
      return pending
    }
  }

  const xhr = XMLHttpRequest.prototype
  const open = xhr.open
  const send = xhr.send
  xhr.open = function (this: XMLHttpRequest & { __svc?: { method: string; url: string } }, method: string, url: string | URL, ...rest: unknown[]) {
    this.__svc = { method: String(method).toUpperCase(), url: String(url) }
    return (open as (...a: unknown[]) => void).call(this, method, url, ...rest)
  } as typeof xhr.open
  xhr.send = function (this: XMLHttpRequest & { __svc?: { method: string; url: string } }, body?: Document | XMLHttpRequestBodyInit | null) {
    const info = this.__svc
    if (info && !isOwn(info.url)) {
      const started = Date.now()
      this.addEventListener('loadend', () => safely(() => trail.add({ type: 'http', message: `${info.method} ${stripUrl(info.url)}`, data: { method: info.method, status: this.status || undefined, duration_ms: Date.now() - started } })))
    }
    return send.call(this, body)
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}
