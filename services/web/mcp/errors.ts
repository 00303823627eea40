/**
 * The tool server's HTTP refusals (/mcp): what is answered before a JSON-RPC message is read (no
 * key, a bad or revoked key, too many requests, a body over the cap). Each carries `code` and
 * `message`, and `retry_after` on 429 and 503. What the JSON-RPC layer refuses (a malformed message)
 * is a JSON-RPC error, and a tool's refusal is a tool result (docs/mcp.md). docs/errors.md is kept
 * in step by a test.
 */
import { CataloguedError, type ErrorDetail, type ErrorSpec } from '../../../shared/http/errors.js'

export const TOOL_SERVER_ERRORS = {
  key_missing: { status: 401, message: 'No api key came with the request. Send Authorization: Bearer <api key> (svc_ak_...), read from a file or the SVC_API_KEY environment variable.' },
  key_malformed: { status: 401, message: 'The bearer token is not an api key (svc_ak_<id>_<secret>); it may be truncated. Copy the whole key again, or create one in Settings > API keys.' },
  key_unknown: { status: 401, message: 'The api key is not known or was revoked. Create a new one in the dashboard under Settings > API keys and use it instead.' },
  insufficient_scope: { status: 403, message: 'This key is not an api key (an ingest or source-map key cannot use the tool server). Use the api key (svc_ak_...) from Settings > API keys.' },
  rate_limited: { status: 429, message: 'Too many requests with this api key this minute. Wait retry_after seconds, then retry.' },
  request_too_large: { status: 413, message: 'The request body is over 64 KiB. Send one JSON-RPC message with short arguments; do not retry the same body.' },
  not_gzip: { status: 400, message: 'The body is marked gzip but does not decompress. Send valid gzip or drop Content-Encoding.' },
  method_not_allowed: { status: 405, message: 'The tool server is stateless and answers POST only: send each JSON-RPC message as a POST to /mcp.' },
  key_check_unavailable: { status: 503, message: 'The key cannot be checked right now (the database is unreachable). Retry in retry_after seconds.' },
  unavailable: { status: 503, message: 'The service cannot reach Redis or its database right now. Retry in retry_after seconds.' },
  internal_error: { status: 500, message: 'The service failed to handle the request. Retry once; if it persists, ask the service operator to check its logs.' },
} as const satisfies Record<string, ErrorSpec>

export type ToolServerErrorCode = keyof typeof TOOL_SERVER_ERRORS

/** A refused /mcp request: a catalogued code and its answer. */
export class ToolServerError extends CataloguedError<ToolServerErrorCode> {
  constructor(code: ToolServerErrorCode, detail: ErrorDetail = {}) {
    super(code, TOOL_SERVER_ERRORS[code], detail)
    this.name = 'ToolServerError'
  }
}
