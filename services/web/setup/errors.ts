/**
 * The setup-session surface's error catalogue (/api/v1/agent/...). Every answer that is not a
 * success carries `code` and `message`; the spec's client rules hang on the status: 404 and 410
 * never retry, 429 waits retry_after, 503 retries. docs/errors.md is kept in step by a test.
 */
import { CataloguedError, type ErrorDetail, type ErrorSpec } from '../../../shared/http/errors.js'

export const AGENT_ERRORS = {
  invalid_json: { status: 400, message: 'The body is not valid JSON. Send one JSON object encoded as UTF-8.' },
  invalid_request: { status: 400, message: 'The request does not match what this endpoint takes. Fix the field named in "field" and send it again.' },
  step_set_by_service: { status: 400, message: 'The service sets this step itself from what it observes; report it only as failed or skipped.' },
  repo_not_in_installation: { status: 400, message: 'The code host app is installed, but not on this repository. Ask the person to add it at add_repo_url, then attach again.' },
  codehost_not_installed: { status: 400, message: 'The code host app is not installed on the repository owner. Send the person to codehost_install_url, then attach again.' },
  codehost_rejected: { status: 400, message: 'The code host cannot attach this repository. Fix what "error" says, then attach again.' },
  codehost_not_configured: { status: 409, message: 'This service has no code host app configured, so no repository can be attached. Skip the codehost step and tell the person.' },
  not_approved: { status: 409, message: 'The person has not approved this session yet. Keep polling until approved is true, then call this again.' },
  codehost_installation_gone: { status: 409, message: 'The code host app installation this project used was removed. Ask the person to install the app again, then attach again.' },
  codehost_installation_suspended: { status: 409, message: 'The code host app installation is suspended. Ask the person to unsuspend it in the code host settings, then attach again.' },
  session_not_found: { status: 404, message: 'No setup session matches this poll id and token. Do not retry: start a new setup session.' },
  session_expired: { status: 410, message: 'This setup session expired. Do not retry: start a new setup session.' },
  not_found: { status: 404, message: 'No such endpoint. Setup-session endpoints live under /api/v1/agent.' },
  payload_too_large: { status: 413, message: 'The body is over 64 KiB. Send a smaller body.' },
  unsupported_media_type: { status: 415, message: 'Send the body with Content-Type: application/json.' },
  first_event_missing: { status: 422, message: 'No error event has arrived for this project since the session began. Send a test error with the ingest key, wait for has_events, then complete again.' },
  rate_limited: { status: 429, message: 'Too many requests. Wait retry_after seconds, then retry.' },
  too_many_waiters: { status: 429, message: 'This session already has the most long polls the service holds at once. Wait retry_after seconds, then poll again.' },
  codehost_unreachable: { status: 503, message: 'The code host could not be reached. Retry up to 6 times, 10 seconds apart.' },
  unavailable: { status: 503, message: 'The service cannot reach its database or queue right now; nothing was changed. Retry shortly.' },
  internal_error: { status: 500, message: 'The service failed to handle the request. Retry once; if it persists, check the service logs.' },
} as const satisfies Record<string, ErrorSpec>

export type AgentErrorCode = keyof typeof AGENT_ERRORS

/** A failed setup-session request: the code plus the extra fields some answers carry. */
export class AgentError extends CataloguedError<AgentErrorCode> {
  constructor(code: AgentErrorCode, detail: ErrorDetail = {}) {
    super(code, AGENT_ERRORS[code], detail)
    this.name = 'AgentError'
  }

  /** The JSON answer body. */
  override toBody(): Record<string, unknown> {
    const body = super.toBody()
    // The attach table's "other 400" and "other 409" rows promise an error string; every 400 and
    // 409 carries one, so a client reading either field finds the reason.
    if ((this.status === 400 || this.status === 409) && body.error === undefined) body.error = this.message
    return body
  }
}
