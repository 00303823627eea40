/**
 * The ingestion surface's error catalogue: every answer that is not a success carries one of these
 * codes with its status and a message saying what to do. docs/errors.md is kept in step by a test.
 */
import { CataloguedError, type BodyError, type ErrorDetail, type ErrorSpec } from '../../shared/http/errors.js'

export const INGEST_ERRORS = {
  invalid_json: { status: 400, message: 'The body is not valid JSON. Send one JSON object encoded as UTF-8.' },
  invalid_event: { status: 400, message: 'The event does not match the schema. Fix the field named in "field" and send it again.' },
  invalid_envelope: { status: 400, message: 'The body is not a Sentry envelope (a JSON header line, then item header and payload lines). Fix what "message" names, or send the SDK\'s envelope unchanged.' },
  invalid_recording: { status: 400, message: 'The recording chunk does not match the schema. Fix the field named in "field" and send the chunk again.' },
  key_missing: { status: 401, message: 'No X-API-Key header. Send the project\'s ingest key (svc_pk_…) in X-API-Key.' },
  key_malformed: { status: 401, message: 'The X-API-Key value is not a whole key: it may be truncated or edited. Copy the full ingest key again.' },
  key_unknown: { status: 401, message: 'The X-API-Key value matches no stored key (or it was revoked). Use a current ingest key from the project settings.' },
  insufficient_scope: { status: 403, message: 'This key is real but cannot be used here: send events with the ingest key (svc_pk_…), not a source-map or API key.' },
  project_mismatch: { status: 403, message: 'The key belongs to another project than the one in the URL (the DSN\'s last segment). Use the DSN shown in this project\'s settings.' },
  not_found: { status: 404, message: 'No such endpoint. Events go to POST /api/v1/events.' },
  payload_too_large: { status: 413, message: 'The body is over 1 MiB (counted after decompression). Trim breadcrumbs or the stack and send it again.' },
  unsupported_media_type: { status: 415, message: 'Send the event with Content-Type: application/json.' },
  unsupported_encoding: { status: 415, message: 'Content-Encoding must be gzip or absent.' },
  invalid_sourcemap: { status: 400, message: 'The body is not a source map (JSON with version 3 and mappings). Upload the .map file the build wrote.' },
  sourcemap_target_missing: { status: 400, message: 'Say which file the map serves: send ?path=/assets/app.js and ?release=, or the X-Svc-Debug-Id header of a stamped chunk.' },
  rate_limited: { status: 429, message: 'This key sent more events than its per-minute limit. Wait retry_after seconds, then send again.' },
  project_quota_exceeded: { status: 429, message: 'This project took in more events this minute than its cap (project settings, or SVC_PROJECT_EVENTS_PER_MINUTE). Wait retry_after seconds, then send again.' },
  backlog_full: { status: 429, message: 'The service is behind on processing events. Wait retry_after seconds, then send again.' },
  objectstore_unavailable: { status: 503, message: 'The object store cannot take the upload now; nothing was stored. Check the service configuration, then upload again.' },
  unavailable: { status: 503, message: 'The event could not be queued because the queue is unreachable; nothing was stored. Send it again shortly.' },
  key_check_unavailable: { status: 503, message: 'The key cannot be checked now because the database is unreachable; nothing was stored. Send it again in retry_after seconds.' },
  internal_error: { status: 500, message: 'The service failed to handle the request; nothing was stored. Send it again; if it persists, check the service logs.' },
} as const satisfies Record<string, ErrorSpec>

export type IngestErrorCode = keyof typeof INGEST_ERRORS

/** The key answers of the source-map upload, which speak of its key, not the ingest key. */
export const UPLOAD_KEY_MESSAGES: Readonly<Record<'key_missing' | 'key_malformed' | 'key_unknown' | 'insufficient_scope' | 'key_check_unavailable', string>> = {
  key_missing: "No X-API-Key header. Send the project's source-map key (svc_sk_…) in X-API-Key.",
  key_malformed: 'The X-API-Key value is not a whole key: it may be truncated or edited. Copy the full source-map key again.',
  key_unknown: 'The X-API-Key value matches no stored key (or it was revoked). Use a current source-map key from the project settings.',
  insufficient_scope: 'This key is real but cannot upload source maps: use the source-map key (svc_sk_…) from SVC_SOURCEMAP_KEY.',
  key_check_unavailable: 'The source-map key cannot be checked now because the database is unreachable; nothing was stored. Upload again in retry_after seconds.',
}

/** The recordings route's key answer that would otherwise speak of events: it takes chunks (the others fit both). */
export const CHUNK_KEY_MESSAGES: Readonly<Partial<Record<IngestErrorCode, string>>> = {
  insufficient_scope: 'This key is real but cannot send recordings: send the chunks with the ingest key (svc_pk_…), not a source-map or API key.',
}

/** A failed ingestion request: the code, plus the field at fault or a retry delay where they apply. */
export class IngestError extends CataloguedError<IngestErrorCode> {
  constructor(code: IngestErrorCode, detail: ErrorDetail = {}) {
    super(code, INGEST_ERRORS[code], detail)
    this.name = 'IngestError'
  }
}

/** The ingestion answer to a body the kernel's reader refused: 413, or 400 for gzip that is not. */
export function ingestBodyError(error: BodyError): IngestError {
  return error.reason === 'too_large' ? new IngestError('payload_too_large') : new IngestError('invalid_json', { message: error.message })
}
