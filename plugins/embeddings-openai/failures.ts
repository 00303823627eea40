/**
 * The EmbeddingsUnavailable for each way a request to an OpenAI-compatible embeddings endpoint
 * fails. The SDK's own errors are never passed on: they carry response headers, and OpenAI's 401
 * text quotes part of the key, so messages are built from the status, the provider's error code
 * when it is a plain word, and our own words.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai'
import { EmbeddingsUnavailable } from '../../shared/plugins/embeddings-types.js'

export interface FailureContext {
  /** The model's stored name, e.g. openai:text-embedding-3-small. */
  readonly model: string
  /** The API's origin (never a path or credentials). */
  readonly origin: string
  readonly timeoutMs: number
}

/** Whether error is the provider refusing the request as malformed (400): the model may not take dimensions. */
export function isBadRequest(error: unknown): boolean {
  return error instanceof APIError && error.status === 400
}

/** The EmbeddingsUnavailable to throw for error, thrown by the SDK or by our reply check. */
export function explainFailure(error: unknown, context: FailureContext): EmbeddingsUnavailable {
  if (error instanceof EmbeddingsUnavailable) return error
  const { model, origin, timeoutMs } = context
  // Our deadline aborts the request (it also covers a body that trickles in); the SDK's own timeout is the same length.
  if (error instanceof APIUserAbortError || error instanceof APIConnectionTimeoutError) {
    return new EmbeddingsUnavailable(`${model} did not answer within ${timeoutMs} ms. Try again later, or check the endpoint's load.`)
  }
  if (error instanceof APIConnectionError) return new EmbeddingsUnavailable(`${model}: could not connect to ${origin}. Check EMBEDDINGS_BASE_URL and the network.`)
  if (error instanceof APIError && typeof error.status === 'number') return explainStatus(error, model)
  if (error instanceof SyntaxError) return new EmbeddingsUnavailable(`${model} answered with a body that is not valid JSON. Check EMBEDDINGS_BASE_URL points at an embeddings API.`)
  return new EmbeddingsUnavailable(`${model}: the reply could not be read (${error instanceof Error ? error.name : typeof error}).`)
}

function explainStatus(error: APIError, model: string): EmbeddingsUnavailable {
  const status = error.status as number
  // Error codes and types are short words (rate_limit_exceeded, invalid_api_key); anything else is not repeated.
  const code = [error.code, error.type].find((word) => typeof word === 'string' && /^[a-z_]{1,64}$/.test(word))
  const answered = `${model} answered ${status}${code === undefined ? '' : ` ${code}`}`
  if (status === 429) {
    const wait = retryAfterMs(error.headers)
    return new EmbeddingsUnavailable(`${answered}: rate limited${wait === undefined ? '' : `; retry after ${Math.ceil(wait / 1000)} s`}.`, wait)
  }
  if (status >= 500) return new EmbeddingsUnavailable(`${answered}: the provider has a problem. Try again later.`)
  if (status === 401) return new EmbeddingsUnavailable(`${answered}: the API key was refused. Check EMBEDDINGS_API_KEY.`)
  if (status === 403) return new EmbeddingsUnavailable(`${answered}: the API key may not use this model or endpoint. Check the key's permissions.`)
  if (status === 404) return new EmbeddingsUnavailable(`${answered}: no such model or endpoint. Check EMBEDDINGS_MODEL and EMBEDDINGS_BASE_URL (the API root, ending in /v1).`)
  return new EmbeddingsUnavailable(`${answered}: the provider refused the request. Check EMBEDDINGS_MODEL names an embeddings model.`)
}

/** How long a 429 asks to wait: retry-after-ms (OpenAI's), else retry-after in seconds or as an HTTP date. */
function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? NaN)
  if (Number.isFinite(ms) && ms > 0) return ms
  const raw = headers?.get('retry-after')
  if (raw === null || raw === undefined || raw.trim() === '') return undefined
  const seconds = Number(raw)
  if (Number.isFinite(seconds)) return seconds > 0 ? seconds * 1000 : undefined
  const at = Date.parse(raw)
  return Number.isFinite(at) && at > Date.now() ? at - Date.now() : undefined
}
