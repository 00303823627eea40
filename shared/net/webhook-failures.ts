/**
 * Sentences for a webhook request that failed before the chat tool answered (the address guard
 * refused the URL, a redirect, a timeout, no connection), shared by the chat plugins that post
 * through the guarded fetch. Each names what to do and never the URL: callers still pass the
 * result through redactWebhook as their last line of defence.
 */
import { GuardedFetchError } from './guarded-fetch.js'

/** True when the URL itself cannot work (refused by the address guard, or answered with a redirect): trying again cannot help. */
export function isRefusedRequest(error: unknown): boolean {
  return error instanceof GuardedFetchError && (error.reason === 'refused' || error.reason === 'redirect')
}

/**
 * What went wrong with a request that got no usable answer, in words. urlHint says what URL to
 * send instead ("the webhook URL exactly as Discord shows it").
 */
export function explainRequestFailure(error: unknown, allowPrivate: boolean, urlHint: string): string {
  if (!(error instanceof GuardedFetchError)) {
    // Not ours to vouch for: whatever this is, its message is not shown.
    return `Delivery failed unexpectedly (${error instanceof Error ? error.name : typeof error}). Try again; if it persists, create a new webhook.`
  }
  switch (error.reason) {
    case 'refused':
      if (error.detail === 'malformed' || error.detail === 'scheme' || error.detail === 'credentials') {
        return `The webhook URL ${error.message.replace(/^the URL /, '')}: send ${urlHint}.`
      }
      return allowPrivate
        ? `The webhook URL was refused: ${error.message}.`
        : `The webhook URL was refused: ${error.message}, and chat webhooks must be on the public internet. A self-hosted development stack may allow it with SVC_ALLOW_PRIVATE_WEBHOOKS=1.`
    case 'redirect':
      return `The webhook answered with a redirect, which is not followed: send ${urlHint}.`
    case 'timeout':
      return `The webhook's server did not answer (${error.message}). Try again in a minute.`
    case 'too_large':
      return `The webhook's server answered with an unexpectedly large body: check that the URL is a webhook.`
    case 'network':
      return `Could not reach the webhook's server: ${error.message}. Check the URL and try again.`
  }
}
