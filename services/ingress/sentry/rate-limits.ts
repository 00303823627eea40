/**
 * The headers a refusal carries so the Sentry SDKs back off: Retry-After, and X-Sentry-Rate-Limits
 * as "<seconds>:<categories>:<scope>" (no categories: every kind of item), exposed to browser code.
 * The scope says whose limit it was: the key's, the project's cap, or the service's backlog.
 */
import type { IngestError } from '../errors.js'

const SCOPES: Readonly<Partial<Record<IngestError['code'], string>>> = {
  rate_limited: 'key',
  project_quota_exceeded: 'project',
  backlog_full: 'organization',
}

/** Headers for an answer: none unless it says when to come back. */
export function rateLimitHeaders(answer: IngestError): Array<[string, string]> {
  const seconds = answer.detail.retryAfter
  if (seconds === undefined) return []
  const headers: Array<[string, string]> = [['Retry-After', String(seconds)]]
  const scope = SCOPES[answer.code]
  if (scope) headers.push(['X-Sentry-Rate-Limits', `${seconds}::${scope}`])
  headers.push(['Access-Control-Expose-Headers', scope ? 'Retry-After, X-Sentry-Rate-Limits' : 'Retry-After'])
  return headers
}
