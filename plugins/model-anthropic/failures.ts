/** How @anthropic-ai/sdk's errors look, for the shared turn runner (shared/plugins/model-turn.ts). */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk'
import type { ProviderErrors } from '../../shared/plugins/model-turn.js'

export const anthropicErrors: ProviderErrors = {
  isTimeout: (error) => error instanceof APIConnectionTimeoutError,
  // The timeout error is a connection error too: isTimeout is asked first.
  isConnection: (error) => error instanceof APIConnectionError,
  answered: (error) =>
    error instanceof APIError && typeof error.status === 'number' ? { status: error.status, codes: [error.type], retryAfter: error.headers?.get('retry-after') } : undefined,
}
