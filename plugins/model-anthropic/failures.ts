/**
 * Every way a Messages API call can fail, as ModelUnavailable (a later run may work) or
 * ModelRejected (a person must act). The SDK's own errors are never passed on: they carry the
 * response headers, and a provider's error text may quote the request, so messages here are built
 * from the status, the provider's error type when it is a plain code, and our own words.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk'
import { ModelRejected, ModelUnavailable } from '../../shared/plugins/model-types.js'

/** What explainFailure needs to know about the call that failed. */
export interface FailedCall {
  readonly label: string
  /** The API's origin (never a path or credentials), for "could not connect to …". */
  readonly origin: string
  readonly timeoutMs: number
  /** The caller aborted: the run stopped waiting, which is not the provider being slow. */
  readonly aborted: boolean
  /** Our deadline for the whole call (body included) passed. */
  readonly timedOut: boolean
}

/** The ModelUnavailable or ModelRejected to throw for error, thrown by the SDK during call. */
export function explainFailure(error: unknown, call: FailedCall): ModelUnavailable | ModelRejected {
  if (error instanceof ModelUnavailable || error instanceof ModelRejected) return error
  const { label } = call
  // Checked before the error's class: an abort while the body was being read surfaces as the
  // platform's AbortError, not as the SDK's.
  if (call.aborted) return new ModelUnavailable(`${label}: the request was aborted before the model answered (the run stopped waiting).`, 'timeout')
  if (call.timedOut || error instanceof APIConnectionTimeoutError) {
    return new ModelUnavailable(`${label} did not answer within ${call.timeoutMs} ms. Try again later, or raise the timeout.`, 'timeout')
  }
  if (error instanceof APIConnectionError) return new ModelUnavailable(`${label}: could not connect to ${call.origin}. Check the base URL and the network.`, 'unreachable')
  if (error instanceof APIError && typeof error.status === 'number') return explainStatus(error, label)
  if (error instanceof SyntaxError) return new ModelUnavailable(`${label} answered with a body that is not valid JSON.`, 'bad_reply')
  return new ModelUnavailable(`${label}: the reply could not be read (${error instanceof Error ? error.name : typeof error}).`, 'bad_reply')
}

function explainStatus(error: APIError, label: string): ModelUnavailable | ModelRejected {
  const status = error.status as number
  // Anthropic's error types are short codes (rate_limit_error); anything else is not repeated.
  const type = typeof error.type === 'string' && /^[a-z_]{1,64}$/.test(error.type) ? ` ${error.type}` : ''
  const answered = `${label} answered ${status}${type}`
  if (status === 429) {
    const wait = Number(error.headers?.get('retry-after'))
    const after = Number.isFinite(wait) && wait > 0 ? `; retry after ${wait} s` : ''
    return new ModelUnavailable(`${answered}: rate limited${after}.`, 'rate_limited')
  }
  if (status >= 500) return new ModelUnavailable(`${answered}: the provider has a problem. Try again later.`, 'server_error')
  if (status === 408) return new ModelUnavailable(`${answered}: the provider timed the request out. Try again later.`, 'timeout')
  if (status === 401) return new ModelRejected(`${answered}: the API key was refused. Check the apiKey setting.`, status)
  if (status === 403) return new ModelRejected(`${answered}: the API key may not use this model or endpoint. Check the key's permissions.`, status)
  if (status === 404) return new ModelRejected(`${answered}: no such model or endpoint. Check the model name and the base URL.`, status)
  return new ModelRejected(`${answered}: the provider refused the request. Check the model name and settings.`, status)
}
