/**
 * What every webhook chat plugin (chat-slack, chat-discord, chat-webhook) shares: the
 * allowPrivateAddresses setting, the guarded fetch it posts through (shared/net: no private or
 * local address unless allowed, plain http only then, no redirects, a 10 s limit, a small answer),
 * the development warning, and a log line per send that never holds the URL.
 */
import { createGuardedFetch, type GuardedFetch } from '../net/guarded-fetch.js'
import { SECOND } from '../time.js'
import type { ChatPlugin, ChatResult, PluginContext } from './types.js'

/** The allowPrivateAddresses property of a chat plugin's config schema. */
export const ALLOW_PRIVATE_ADDRESSES = {
  type: 'boolean',
  default: false,
  description: 'Allow webhooks on private, loopback and other non-public addresses, and plain http. Development and tests only.',
} as const

/** A chat plugin that posts text to a webhook URL with post, through the shared guarded fetch. */
export function webhookChat(name: string, context: PluginContext, allowPrivate: boolean, post: (fetch: GuardedFetch, webhookUrl: string, text: string) => Promise<ChatResult>): ChatPlugin {
  const fetch = createGuardedFetch({
    allowPrivate,
    // Plain http only where private addresses are allowed: a webhook's path is its secret.
    requireHttps: !allowPrivate,
    // Chat tools answer within a second or two; a setup step should not hang on a dead host.
    timeoutMs: 10 * SECOND,
    // They answer "ok", 204 or a small JSON error.
    maxResponseBytes: 64 * 1024,
  })
  if (allowPrivate) context.log.warn(`${name}: private webhook addresses are allowed (development setting)`)
  return {
    async send(webhookUrl, message) {
      const result = await post(fetch, webhookUrl, message.text)
      // Never the URL: only whether it worked and the already-redacted reason.
      if (result.ok) context.log.debug(`${name}: message delivered`)
      else context.log.warn(`${name}: delivery failed`, { error: result.error })
      return result
    },
  }
}
