/**
 * One delivery of a signed message to a receiver's URL, with every failure turned into a sentence
 * a person can act on. A receiver may be anything, so its answer's body is never repeated (only
 * the status), and the URL is a secret (redactWebhook).
 */
import type { Webhook } from 'standardwebhooks'
import type { GuardedFetch } from '../../shared/net/guarded-fetch.js'
import { explainRequestFailure, isRefusedRequest } from '../../shared/net/webhook-failures.js'
import { redactWebhook } from '../../shared/net/webhook-redaction.js'
import type { ChatResult } from '../../shared/plugins/types.js'
import { signedRequest } from './message.js'

/** Answers that mean the receiver refused the webhook itself (no such URL, not allowed, gone): a person must fix it. */
const REJECTED = new Set([401, 403, 404, 410])

const URL_HINT = 'the full https URL of the receiver'

/** Signs text and posts it to webhookUrl; never throws, and the error never contains the URL. */
export async function deliver(fetch: GuardedFetch, webhook: Webhook, rawUrl: string, text: string, allowPrivate: boolean): Promise<ChatResult> {
  // Callers pass what a client sent; a non-string must fail like a bad URL, not throw.
  const webhookUrl = typeof rawUrl === 'string' ? rawUrl : ''
  const request = signedRequest(webhook, typeof text === 'string' ? text : '', new Date())
  let response: Response
  try {
    response = await fetch(webhookUrl.trim(), { method: 'POST', headers: request.headers, body: request.body })
  } catch (error) {
    return { ok: false, error: redactWebhook(explainRequestFailure(error, allowPrivate, URL_HINT), webhookUrl), rejected: isRefusedRequest(error) }
  }
  if (response.ok) return { ok: true }
  return { ok: false, error: redactWebhook(explainStatus(response.status), webhookUrl), rejected: REJECTED.has(response.status) }
}

function explainStatus(status: number): string {
  if (status === 401 || status === 403) {
    return `The receiver refused the signed message (${status}): check that it verifies with the same secret as SVC_CHAT_WEBHOOK_SECRET, then connect chat again.`
  }
  if (REJECTED.has(status)) return `The receiver answered ${status}: no webhook at this URL (removed or mistyped). Send the receiver's current URL.`
  if (status === 429) return `The receiver is rate limiting (429). Try again in a minute.`
  if (status >= 500) return `The receiver answered ${status}: the problem is on its side. Try again in a few minutes.`
  return `The receiver answered ${status}. Check that the URL takes signed JSON posts (docs/chat-webhooks.md); a later try may pass.`
}
