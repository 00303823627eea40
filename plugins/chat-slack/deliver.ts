/**
 * One delivery to a Slack incoming webhook through the official client, with every failure turned
 * into a sentence a person can act on. The client's own errors are never passed on: their text is
 * not ours to vouch for, and the webhook URL is a secret.
 */
import { IncomingWebhook, IncomingWebhookHTTPError, IncomingWebhookRequestError } from '@slack/webhook'
import type { GuardedFetch } from '../../shared/net/guarded-fetch.js'
import { GuardedFetchError } from '../../shared/net/guarded-fetch.js'
import { explainRequestFailure, isRefusedRequest } from '../../shared/net/webhook-failures.js'
import type { ChatResult } from '../../shared/plugins/types.js'
import { redactWebhook } from '../../shared/net/webhook-redaction.js'

/** Slack's answers for a webhook that no longer exists or was never valid: the fix is a new webhook. */
const GONE = new Set(['invalid_token', 'no_service', 'no_team', 'team_disabled', 'channel_not_found', 'channel_is_archived', 'action_prohibited'])

/** Posts text to webhookUrl; never throws, and the error never contains the URL. */
export async function deliver(fetch: GuardedFetch, rawUrl: string, text: string, allowPrivate: boolean): Promise<ChatResult> {
  // Callers pass what a client sent; a non-string must fail like a bad URL, not throw.
  const webhookUrl = typeof rawUrl === 'string' ? rawUrl : ''
  try {
    const webhook = new IncomingWebhook(webhookUrl.trim(), { fetch })
    await webhook.send({ text })
    return { ok: true }
  } catch (error) {
    return { ok: false, error: redactWebhook(explain(error, allowPrivate), webhookUrl), rejected: isRejection(error) }
  }
}

/** True when Slack (or the address guard) refused the webhook itself: a 4xx other than 429, a refused or redirecting URL. */
function isRejection(error: unknown): boolean {
  if (error instanceof IncomingWebhookHTTPError) return error.statusCode >= 400 && error.statusCode < 500 && error.statusCode !== 429
  const cause = error instanceof IncomingWebhookRequestError ? error.original : error
  return isRefusedRequest(cause)
}

function explain(error: unknown, allowPrivate: boolean): string {
  if (error instanceof IncomingWebhookHTTPError) return explainStatus(error.statusCode, error.body)
  const cause = error instanceof IncomingWebhookRequestError ? error.original : error
  if (cause instanceof GuardedFetchError) return explainRequestFailure(cause, allowPrivate, 'the full incoming-webhook URL as Slack shows it')
  // The client validates nothing else; whatever this is, its message is not shown.
  return `Delivery failed unexpectedly (${error instanceof Error ? error.name : typeof error}). Try again; if it persists, create a new incoming webhook.`
}

function explainStatus(status: number, body: string): string {
  // Slack answers a bare error code; anything else (an HTML page, an echo of the request) is not repeated.
  const code = /^[a-z_]{1,64}$/.test(body.trim()) ? ` ${body.trim()}` : ''
  if (GONE.has(body.trim()) || status === 404 || status === 410) {
    return `Slack refused the webhook (${status}${code}): it was removed, revoked or mistyped. Create a new incoming webhook in Slack and send its URL.`
  }
  if (status === 429) return `Slack is rate limiting this webhook (429${code}). Try again in a minute.`
  if (status >= 500) return `Slack answered ${status}${code}: the problem is on Slack's side. Try again in a few minutes.`
  return `Slack refused the message (${status}${code}). Check that the URL is a Slack incoming webhook.`
}
