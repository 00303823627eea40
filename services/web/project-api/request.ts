/**
 * What the project API's issue routes read of a request (the ids in its path, the session cookie,
 * the bearer key, and the headers a cross-site check needs), read at once: uWebSockets.js lets a
 * handler read the request only before it first awaits.
 */
import type uWS from 'uWebSockets.js'
import { cookieName, parseCookies } from '../http/cookies.js'

export interface ApiRequest {
  projectId: string
  issueId: string
  token: string | undefined
  authorization: string
  origin: string
  fetchSite: string
  host: string
}

/** The request's parts; the path's first two parameters are the project's and the issue's ids. */
export function readApiRequest(req: uWS.HttpRequest, secureCookies: boolean): ApiRequest {
  return {
    projectId: req.getParameter(0) ?? '',
    issueId: req.getParameter(1) ?? '',
    token: parseCookies(req.getHeader('cookie')).get(cookieName('session', secureCookies)),
    authorization: req.getHeader('authorization'),
    origin: req.getHeader('origin'),
    fetchSite: req.getHeader('sec-fetch-site'),
    host: req.getHeader('host'),
  }
}
