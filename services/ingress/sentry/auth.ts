/**
 * Where the Sentry SDKs put the public key, and which project a request names. The key is our
 * project's ingest key (svc_pk_…), which is all word characters, so it fits the SDKs' DSN pattern.
 *
 * The first place that has a key wins: the X-Sentry-Auth header, then the sentry_key query
 * parameter (what @sentry/browser sends), then the envelope header's dsn.
 *
 * The project segment of the URL (the DSN's last segment) is the project's DSN number
 * (projects.dsn_number): the SDKs keep only a DSN project's leading digits and refuse one without,
 * so our UUID project ids cannot be written in a DSN. Our project's id is taken too, for a client
 * that builds the URL itself. Anything else, another project's number included, is
 * project_mismatch (docs/sentry-sdk.md): a key pasted into another project's DSN is caught.
 */
import { IngestError } from '../errors.js'
import type { IngestKey } from '../accept-event.js'

/** The sentry_key of an X-Sentry-Auth value ("Sentry sentry_key=…, sentry_version=7, …"); undefined when absent. */
export function keyFromAuthHeader(value: string): string | undefined {
  const text = value.replace(/^\s*sentry\s+/i, '')
  for (const part of text.split(',', 20)) {
    const eq = part.indexOf('=')
    if (eq < 0) continue
    if (part.slice(0, eq).trim().toLowerCase() === 'sentry_key') return part.slice(eq + 1).trim() || undefined
  }
  return undefined
}

/** The public key of a DSN ("https://<key>@host/<project>"); undefined for anything else. */
export function keyFromDsn(dsn: unknown): string | undefined {
  if (typeof dsn !== 'string' || dsn.length > 2048) return undefined
  let url: URL
  try {
    url = new URL(dsn)
  } catch {
    return undefined
  }
  return url.username || undefined // not decoded: a key is word characters, anything else is malformed anyway
}

/** Throws project_mismatch unless the URL's project segment is the key's project: its DSN number or its id. */
export function checkProjectSegment(segment: string, key: Pick<IngestKey, 'projectId' | 'dsnNumber'>): void {
  if (segment === key.dsnNumber || segment.toLowerCase() === key.projectId.toLowerCase()) return
  throw new IngestError('project_mismatch')
}

/** Words the key answers with where our catalogue speaks of X-API-Key: these routes read the DSN's key. */
export const SENTRY_KEY_MESSAGES = {
  key_missing: 'No key. Send the project\'s ingest key (svc_pk_…) as the DSN\'s public key: https://<key>@host/<project>.',
  key_malformed: 'The DSN\'s public key is not a whole key: it may be truncated or edited. Copy the DSN again from the project settings.',
  key_unknown: 'The DSN\'s public key matches no stored key (or it was revoked). Use the DSN of a current ingest key from the project settings.',
  insufficient_scope: 'This key is real but cannot send events: put the ingest key (svc_pk_…) in the DSN, not a source-map or API key.',
} as const
