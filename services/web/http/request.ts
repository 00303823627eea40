/**
 * Reading a dashboard request. uWS keeps the request on its stack only until the handler returns
 * or awaits, so everything a route needs is copied out at once; the form body is read with a cap.
 * Text PostgreSQL cannot hold (a NUL) reads as U+FFFD in the address and is refused in a form
 * (shared/http/request-text.ts).
 */
import type { HttpRequest, HttpResponse } from 'uWebSockets.js'
import { BodyError } from '../../../shared/http/errors.js'
import { clientAddress, readBodyText, type Exchange } from '../../../shared/http/exchange.js'
import { readQuery, unstorableField } from '../../../shared/http/request-text.js'
import { storableText } from '../../../shared/domain/untrusted-text.js'
import { parseCookies } from './cookies.js'
import { PageError } from './respond.js'

/** Forms are a few fields; anything bigger is not one of ours. */
export const FORM_MAX_BYTES = 64 * 1024

export interface PageRequest {
  path: string
  query: URLSearchParams
  /** Route parameters in order (:poll_id, :id, ...). */
  params: string[]
  cookies: Map<string, string>
  /** Origin header; empty when the browser sent none. */
  origin: string
  /** Sec-Fetch-Site header; empty when absent. */
  fetchSite: string
  host: string
  contentType: string
  declaredLength: number
  /** The peer's address, for the sign-in throttle. */
  address: string
}

/** Copies what the dashboard uses out of a request; call before any await. */
export function readRequest(req: HttpRequest, res: HttpResponse, paramCount: number, proxyHops = 0): PageRequest {
  const params: string[] = []
  for (let i = 0; i < paramCount; i++) params.push(storableText(decodeParam(req.getParameter(i) ?? '')))
  return {
    path: req.getUrl(),
    query: readQuery(req.getQuery()),
    params,
    cookies: parseCookies(req.getHeader('cookie')),
    origin: req.getHeader('origin'),
    fetchSite: req.getHeader('sec-fetch-site'),
    host: req.getHeader('host'),
    contentType: req.getHeader('content-type'),
    declaredLength: Number(req.getHeader('content-length') || 0),
    address: clientAddress(res, req.getHeader('x-forwarded-for'), proxyHops),
  }
}

function decodeParam(raw: string): string {
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

/**
 * Starts reading an application/x-www-form-urlencoded body (uWS hands body chunks only to a reader
 * attached before the first await). Rejects with PageError 415, 413, or 400 for a field holding
 * text PostgreSQL cannot hold.
 */
export function readForm(ex: Exchange, request: PageRequest): Promise<URLSearchParams> {
  const type = request.contentType.split(';', 1)[0]!.trim().toLowerCase()
  if (type !== 'application/x-www-form-urlencoded') {
    ex.res.onData(() => {})
    return Promise.reject(new PageError(415, 'Form not understood', 'This address takes form posts from the dashboard pages only. Go back and submit the form again.'))
  }
  if (request.declaredLength > FORM_MAX_BYTES) {
    ex.res.onData(() => {})
    return Promise.reject(tooLarge())
  }
  return readBodyText(ex, FORM_MAX_BYTES, false).then(
    (text) => {
      const form = new URLSearchParams(text)
      const field = unstorableField(form)
      if (field !== undefined) throw new PageError(400, 'Form not accepted', `The field ${JSON.stringify(field)} holds a character that cannot be saved (a NUL). Go back, remove it and submit the form again.`)
      return form
    },
    (error: unknown) => {
      throw error instanceof BodyError && error.reason === 'too_large' ? tooLarge() : error
    },
  )
}

function tooLarge(): PageError {
  return new PageError(413, 'Form too large', `A dashboard form is at most ${FORM_MAX_BYTES / 1024} KiB. Go back and shorten what you entered.`)
}
