/**
 * What the generic signed webhook posts: a small JSON body that stays stable (its version field
 * changes only when a field changes meaning or goes away; new fields may be added), and the
 * Standard Webhooks headers a receiver verifies it with (docs/chat-webhooks.md).
 */
import { randomUUID } from 'node:crypto'
import type { Webhook } from 'standardwebhooks'
import { decodeChatEntities } from '../../shared/plugins/chat-text.js'

/** The body's version: receivers may check it and refuse versions they do not know. */
export const BODY_VERSION = 1

/** The JSON body, as documented. */
export interface MessageBody {
  readonly version: typeof BODY_VERSION
  readonly type: 'message'
  /** Plain text: event text in backticks, untrusted (escape it before putting it in HTML). */
  readonly text: string
  /** When it was signed, ISO 8601 in UTC; the same instant as webhook-timestamp. */
  readonly sent_at: string
}

/** A signed request, ready to post. */
export interface SignedRequest {
  readonly body: string
  readonly headers: Record<string, string>
}

/**
 * The body for text and its headers, signed now. The id is a random UUID per send (msg_<uuid>):
 * a receiver can drop a repeat of the same delivery, but a later try of the same message by its
 * caller is a new send with a new id.
 */
export function signedRequest(webhook: Webhook, text: string, now: Date): SignedRequest {
  const id = `msg_${randomUUID()}`
  const message: MessageBody = { version: BODY_VERSION, type: 'message', text: decodeChatEntities(text), sent_at: now.toISOString() }
  const body = JSON.stringify(message)
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'svc-chat-webhook/1',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': webhook.sign(id, now, body),
    },
  }
}
