/**
 * chat-discord: posts messages to Discord incoming webhooks (POST https://discord.com/api/webhooks/
 * <id>/<token> with JSON { content, allowed_mentions }). Discord publishes no client library for
 * webhooks, so this plugin speaks the small JSON API itself through the guarded fetch
 * (shared/net): a pasted URL cannot reach a private or local address unless allowPrivateAddresses
 * is set for development, redirects are never followed, and errors never contain the URL.
 * Texts over Discord's 2,000 characters are split into up to four posts (split.ts).
 */
import { createGuardedFetch } from '../../shared/net/guarded-fetch.js'
import type { ChatPlugin, PluginModule } from '../../shared/plugins/types.js'
import { SECOND } from '../../shared/time.js'
import { deliver } from './deliver.js'

/** Settings after the loader applied the schema's defaults. */
interface DiscordSettings {
  readonly allowPrivateAddresses: boolean
}

const configSchema = {
  type: 'object',
  properties: {
    allowPrivateAddresses: {
      type: 'boolean',
      default: false,
      description: 'Allow webhooks on private, loopback and other non-public addresses, and plain http. Development and tests only.',
    },
  },
  additionalProperties: false,
} as const

/** The plugin module the loader imports: manifest plus factory. */
const plugin: PluginModule<'chat'> = {
  manifest: { name: 'chat-discord', kind: 'chat', version: '1.0.0', configSchema },
  create(settings, context): ChatPlugin {
    const { allowPrivateAddresses } = settings as unknown as DiscordSettings
    const fetch = createGuardedFetch({
      allowPrivate: allowPrivateAddresses,
      // Plain http only where private addresses are allowed: the token is in the path.
      requireHttps: !allowPrivateAddresses,
      // Discord answers within a second or two; a setup step should not hang on a dead host.
      timeoutMs: 10 * SECOND,
      // Discord answers 204 with no body, or a small JSON error.
      maxResponseBytes: 64 * 1024,
    })
    if (allowPrivateAddresses) context.log.warn('chat-discord: private webhook addresses are allowed (development setting)')
    return {
      async send(webhookUrl, message) {
        const result = await deliver(fetch, webhookUrl, message.text, allowPrivateAddresses)
        // Never the URL: only whether it worked and the already-redacted reason.
        if (result.ok) context.log.debug('chat-discord: message delivered')
        else context.log.warn('chat-discord: delivery failed', { error: result.error })
        return result
      },
    }
  },
}

export default plugin
