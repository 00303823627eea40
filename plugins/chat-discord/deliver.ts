/**
 * One delivery to a Discord incoming webhook: the text in as many posts as it needs (split.ts),
 * each `{ content, allowed_mentions: { parse: [] } }` so nothing in it can ping @everyone, a role or
 * a person, with every failure turned into a sentence a person can act on. Discord's own error
 * text is never repeated (only its numeric code), and the webhook URL is a secret.
 */
import type { GuardedFetch } from '../../shared/net/guarded-fetch.js'
import { explainRequestFailure, isRefusedRequest } from '../../shared/net/webhook-failures.js'
import { redactWebhook } from '../../shared/net/webhook-redaction.js'
import { decodeChatEntities } from '../../shared/plugins/chat-text.js'
import type { ChatResult } from '../../shared/plugins/types.js'
import { splitForDiscord } from './split.js'

/** Discord's JSON error code for a webhook that does not exist (deleted, or a mistyped id or token). */
const UNKNOWN_WEBHOOK = 10015

const URL_HINT = 'the webhook URL exactly as Discord shows it (Copy Webhook URL in the channel\'s Integrations settings)'

/** Posts text to webhookUrl; never throws, and the error never contains the URL. */
export async function deliver(fetch: GuardedFetch, rawUrl: string, text: string, allowPrivate: boolean): Promise<ChatResult> {
  // Callers pass what a client sent; a non-string must fail like a bad URL, not throw.
  const webhookUrl = typeof rawUrl === 'string' ? rawUrl : ''
  const parts = splitForDiscord(decodeChatEntities(typeof text === 'string' ? text : ''))
  for (const [index, content] of parts.entries()) {
    const result = await post(fetch, webhookUrl.trim(), content, allowPrivate)
    if (result.ok) continue
    // A later try sends every part again: the ones Discord took are posted twice (said here, so a person knows why).
    const took = index > 0 ? `Discord took ${index} of the message's ${parts.length} parts, then: ` : ''
    return { ok: false, error: redactWebhook(took + result.error, webhookUrl), rejected: result.rejected }
  }
  return { ok: true }
}

async function post(fetch: GuardedFetch, webhookUrl: string, content: string, allowPrivate: boolean): Promise<ChatResult> {
  let response: Response
  try {
    response = await fetch(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // parse: [] turns off every mention kind; the webhook's own name and avatar are used.
      body: JSON.stringify({ content, allowed_mentions: { parse: [] } }),
    })
  } catch (error) {
    return { ok: false, error: explainRequestFailure(error, allowPrivate, URL_HINT), rejected: isRefusedRequest(error) }
  }
  if (response.ok) return { ok: true }
  const reply = await readReply(response)
  return explainStatus(response.status, reply)
}

/** What Discord's JSON error says that is safe to repeat: its numeric code and a rate limit's wait. */
interface DiscordReply {
  readonly code: number | undefined
  readonly retryAfterSeconds: number | undefined
}

async function readReply(response: Response): Promise<DiscordReply> {
  let json: unknown
  try {
    json = JSON.parse(await response.text())
  } catch {
    json = undefined
  }
  const fields = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {}
  const code = Number.isSafeInteger(fields.code) ? (fields.code as number) : undefined
  const header = Number(response.headers.get('retry-after'))
  const wait = typeof fields.retry_after === 'number' && Number.isFinite(fields.retry_after) ? fields.retry_after : Number.isFinite(header) && header > 0 ? header : undefined
  return { code, retryAfterSeconds: wait === undefined ? undefined : Math.max(1, Math.ceil(wait)) }
}

function explainStatus(status: number, reply: DiscordReply): ChatResult {
  const code = reply.code === undefined ? '' : ` code ${reply.code}`
  if (status === 401 || status === 403 || status === 404) {
    const what = reply.code === UNKNOWN_WEBHOOK ? 'Discord does not know this webhook' : 'Discord refused the webhook'
    const error = `${what} (${status}${code}): it was deleted, or the URL was mistyped. Create a new webhook in the channel's settings (Integrations, Webhooks) and send its URL.`
    return { ok: false, error, rejected: true }
  }
  if (status === 429) {
    const wait = reply.retryAfterSeconds === undefined ? 'in a minute' : `in ${reply.retryAfterSeconds} s`
    return { ok: false, error: `Discord is rate limiting this webhook (429${code}). Try again ${wait}.` }
  }
  if (status >= 500) return { ok: false, error: `Discord answered ${status}${code}: the problem is on Discord's side. Try again in a few minutes.` }
  // 400 and the like: Discord refused this message, not the webhook; a later message may pass.
  return { ok: false, error: `Discord refused the message (${status}${code}). Check that the URL is a Discord webhook; if it is, a later message may pass.` }
}
