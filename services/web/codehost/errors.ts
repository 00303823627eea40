/**
 * The code-host webhook's refusals (POST /api/v1/codehost/webhook): each carries `code` and
 * `message`; a refused delivery changes nothing. Listed in docs/fixes.md ("Following a pull
 * request to its end"), kept in step by a test.
 */
import { CataloguedError, type ErrorDetail, type ErrorSpec } from '../../../shared/http/errors.js'

export const WEBHOOK_ERRORS = {
  webhook_not_configured: { status: 404, message: 'This service takes no code-host webhooks: set CODEHOST_WEBHOOK_SECRET to the app webhook secret, or remove the webhook from the app.' },
  signature_invalid: { status: 401, message: 'X-Hub-Signature-256 is missing or does not match the body. Check that the webhook secret equals CODEHOST_WEBHOOK_SECRET; do not retry the same delivery.' },
  delivery_missing: { status: 400, message: 'X-GitHub-Delivery is missing or is not a delivery id (letters, digits and dashes). Send the header the code host sets; do not retry without it.' },
  delivery_replayed: { status: 409, message: 'This delivery id was taken before: a delivery is applied once. Do not retry it; a new event comes with a new id.' },
  payload_invalid: { status: 400, message: 'The body is not a pull_request payload (JSON with repository.full_name and a pull_request number). Send the code host payload unchanged.' },
  repository_unknown: { status: 422, message: 'No project is attached to this repository. Attach it in the project settings, or remove the webhook from this repository.' },
  repository_mismatch: { status: 422, message: 'The fix of this pull request number was delivered to another repository. Check the project repository setting; do not retry.' },
  request_too_large: { status: 413, message: 'The body is over 1 MiB, larger than any pull_request payload. Check what sends it; do not retry the same body.' },
  unavailable: { status: 503, message: 'The service cannot reach its database right now. Retry the delivery later (the code host can redeliver it).' },
  internal_error: { status: 500, message: 'The service failed to handle the delivery. Retry once; if it persists, ask the service operator to check its logs.' },
} as const satisfies Record<string, ErrorSpec>

export type WebhookErrorCode = keyof typeof WEBHOOK_ERRORS

/** A refused webhook delivery: a catalogued code and its answer. */
export class WebhookError extends CataloguedError<WebhookErrorCode> {
  constructor(code: WebhookErrorCode, detail: ErrorDetail = {}) {
    super(code, WEBHOOK_ERRORS[code], detail)
    this.name = 'WebhookError'
  }
}
