/** How the openai SDK's errors look, for the shared turn runner (shared/plugins/model-turn.ts). */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai'
import type { ProviderErrors } from '../../shared/plugins/model-turn.js'

export const openAiErrors: ProviderErrors = {
  isTimeout: (error) => error instanceof APIConnectionTimeoutError,
  // The timeout error is a connection error too: isTimeout is asked first.
  isConnection: (error) => error instanceof APIConnectionError,
  // OpenAI's 401 text quotes part of the key: only its code and type are ever repeated.
  answered: (error) =>
    error instanceof APIError && typeof error.status === 'number' ? { status: error.status, codes: [error.code, error.type], retryAfter: error.headers?.get('retry-after') } : undefined,
}
