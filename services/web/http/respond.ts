/**
 * Writing dashboard answers over uWS: pages with their security headers, redirects and cookies.
 * Every write is corked (it may follow an await) and skipped when the browser went away.
 */
import { statusLine, type Exchange } from '../../../shared/http/exchange.js'
import type { SafeHtml } from './html.js'

/** A page that ends a request early with a status and a message for the person. */
export class PageError extends Error {
  override name = 'PageError'
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message)
  }
}

/**
 * No script at all, styles only from our stylesheet, forms only to ourselves, never framed.
 * No referrer: page URLs carry poll ids, which must not travel to the code host or anywhere else.
 */
const PAGE_HEADERS: ReadonlyArray<[string, string]> = [
  ['Content-Security-Policy', "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"],
  ['X-Frame-Options', 'DENY'],
  ['Referrer-Policy', 'no-referrer'],
  ['X-Content-Type-Options', 'nosniff'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  // Pages carry CSRF tokens and private data: no cache may keep them.
  ['Cache-Control', 'no-store'],
]

function write(ex: Exchange, status: number, headers: ReadonlyArray<[string, string]>, cookies: readonly string[], body: string): void {
  if (ex.aborted) return
  ex.aborted = true // one answer per exchange
  ex.res.cork(() => {
    ex.res.writeStatus(statusLine(status))
    for (const [name, value] of headers) ex.res.writeHeader(name, value)
    for (const cookie of cookies) ex.res.writeHeader('Set-Cookie', cookie)
    ex.res.end(body)
  })
}

/**
 * The replay page's policy (recordings/views/recording-page.ts), the one page with script: only ours, from
 * our own origin (rrweb-player and the boot script under /assets/), reading the events from our own
 * origin. The replay draws the recorded page in an about:blank iframe, which inherits this policy:
 * rrweb writes the recorded page's styles as <style> elements and style attributes there, hence
 * 'unsafe-inline' for styles (and only styles: Chromium blocks them all without it). Images come
 * only as data: (rrweb's mouse cursor, and images a recording inlined), so a recorded page cannot
 * make the dashboard load anything from elsewhere (its own images and fonts show as empty boxes).
 * Nothing needs frame-src: the iframe is about:blank. It is sandboxed without allow-scripts, and
 * script-src 'self' forbids its inline handlers besides.
 */
export const REPLAY_PAGE_POLICY = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

/** Answers with a whole page; policy replaces the Content-Security-Policy of every other page. */
export function sendPage(ex: Exchange, status: number, page: SafeHtml, options: { cookies?: readonly string[]; retryAfter?: number; policy?: string } = {}): void {
  const policy = options.policy
  const pageHeaders = policy ? PAGE_HEADERS.map(([name, value]): [string, string] => [name, name === 'Content-Security-Policy' ? policy : value]) : PAGE_HEADERS
  const headers: Array<[string, string]> = [['Content-Type', 'text/html; charset=utf-8'], ...pageHeaders]
  if (options.retryAfter !== undefined) headers.push(['Retry-After', String(options.retryAfter)])
  write(ex, status, headers, options.cookies ?? [], page.value)
}

/** Redirects (303 after a form, so the browser follows with GET; 302 for links). location is a path or an absolute URL we built. */
export function redirect(ex: Exchange, location: string, options: { cookies?: readonly string[]; status?: 302 | 303 } = {}): void {
  write(ex, options.status ?? 303, [['Location', location], ...PAGE_HEADERS], options.cookies ?? [], '')
}

/** Answers with a static text asset that browsers may cache for an hour. */
export function sendAsset(ex: Exchange, contentType: string, body: string): void {
  write(ex, 200, [['Content-Type', contentType], ['Cache-Control', 'public, max-age=3600'], ['X-Content-Type-Options', 'nosniff']], [], body)
}
