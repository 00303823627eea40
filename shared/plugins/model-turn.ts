/**
 * What every model plugin does around one provider call: a deadline for the whole call (body
 * included) that also follows the caller's signal, the sorting of every failure into
 * ModelUnavailable (a later run may work) or ModelRejected (a person must act), and one log line
 * per turn. The SDK's own errors are never passed on: they carry response headers, and a
 * provider's error text may quote the request or the key, so messages are built from the status,
 * the provider's error code when it is a plain word, and our own words. A plugin says only how its
 * SDK's errors look (ProviderErrors).
 */
import type { Logger } from '../log.js'
import { ModelRejected, ModelUnavailable, type ModelReply, type ModelRequest } from './model-types.js'

/** How one SDK's errors are recognised. */
export interface ProviderErrors {
  /** The SDK gave up waiting (its own timeout). */
  isTimeout(error: unknown): boolean
  /** No connection could be made. */
  isConnection(error: unknown): boolean
  /** The provider answered with an error status: the status, its error codes or types, and Retry-After. */
  answered(error: unknown): { status: number; codes: unknown[]; retryAfter: string | null | undefined } | undefined
}

export interface TurnSetup {
  /** The plugin's name, for log lines. */
  readonly plugin: string
  readonly label: string
  /** The API's origin (never a path or credentials), for "could not connect to …". */
  readonly origin: string
  readonly timeoutMs: number
  readonly log: Logger
  readonly errors: ProviderErrors
}

/** Runs call (one provider request) under the turn's deadline; failures come out as ModelUnavailable or ModelRejected. */
export async function modelTurn(setup: TurnSetup, request: ModelRequest, call: (signal: AbortSignal) => Promise<ModelReply>): Promise<ModelReply> {
  const deadline = startDeadline(setup.timeoutMs, request.signal)
  try {
    const reply = await call(deadline.signal)
    setup.log.debug(`${setup.plugin}: turn answered`, { model: setup.label, stop: reply.stop, toolCalls: reply.toolCalls.length, ...reply.usage })
    return reply
  } catch (error) {
    const failure = explainFailure(error, setup, request.signal?.aborted === true, deadline.timedOut())
    setup.log.warn(`${setup.plugin}: turn failed`, { model: setup.label, error: failure.message })
    throw failure
  } finally {
    deadline.clear()
  }
}

/**
 * A signal that aborts at timeoutMs or when the caller's signal does. The SDK's own timeout stops
 * at the response headers; this one also covers a body that trickles in.
 */
function startDeadline(timeoutMs: number, caller: AbortSignal | undefined) {
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, timeoutMs)
  const onAbort = (): void => controller.abort()
  // Removed again in clear(): the caller's signal lives for a whole run of many turns.
  caller?.addEventListener('abort', onAbort, { once: true })
  if (caller?.aborted) controller.abort()
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    clear: () => {
      clearTimeout(timer)
      caller?.removeEventListener('abort', onAbort)
    },
  }
}

/** The ModelUnavailable or ModelRejected to throw for error, thrown during a turn. */
export function explainFailure(error: unknown, setup: Pick<TurnSetup, 'label' | 'origin' | 'timeoutMs' | 'errors'>, aborted: boolean, timedOut: boolean): ModelUnavailable | ModelRejected {
  if (error instanceof ModelUnavailable || error instanceof ModelRejected) return error
  const { label } = setup
  // Checked before the error's class: an abort while the body was being read surfaces as the
  // platform's AbortError, not as the SDK's.
  if (aborted) return new ModelUnavailable(`${label}: the request was aborted before the model answered (the run stopped waiting).`, 'timeout')
  if (timedOut || setup.errors.isTimeout(error)) return new ModelUnavailable(`${label} did not answer within ${setup.timeoutMs} ms. Try again later, or raise the timeout.`, 'timeout')
  if (setup.errors.isConnection(error)) return new ModelUnavailable(`${label}: could not connect to ${setup.origin}. Check the base URL and the network.`, 'unreachable')
  const answered = setup.errors.answered(error)
  if (answered) return explainStatus(answered, label)
  if (error instanceof SyntaxError) return new ModelUnavailable(`${label} answered with a body that is not valid JSON.`, 'bad_reply')
  return new ModelUnavailable(`${label}: the reply could not be read (${error instanceof Error ? error.name : typeof error}).`, 'bad_reply')
}

function explainStatus({ status, codes, retryAfter }: NonNullable<ReturnType<ProviderErrors['answered']>>, label: string): ModelUnavailable | ModelRejected {
  // Error codes and types are short words (rate_limit_error, rate_limit_exceeded); anything else is not repeated.
  const code = codes.find((word) => typeof word === 'string' && /^[a-z_]{1,64}$/.test(word))
  const answered = `${label} answered ${status}${code === undefined ? '' : ` ${String(code)}`}`
  if (status === 429) {
    const wait = Number(retryAfter)
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
