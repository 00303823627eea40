/**
 * chat-discord: posts messages to Discord incoming webhooks (POST https://discord.com/api/webhooks/
 * <id>/<token> with JSON { content, allowed_mentions }). Discord publishes no client library for
 * webhooks, so this plugin speaks the small JSON API itself through the guarded fetch
 * (shared/net): a pasted URL cannot reach a private or local address unless allowPrivateAddresses
 * is set for development, redirects are never followed, and errors never contain the URL.
 * Texts over Discord's 2,000 characters are split into up to four posts (split.ts).
 */
import { ALLOW_PRIVATE_ADDRESSES, webhookChat } from '../../shared/plugins/chat-webhook-kit.js'
import type { ChatPlugin, PluginModule } from '../../shared/plugins/types.js'
import { deliver } from './deliver.js'

/** Settings after the loader applied the schema's defaults. */
interface DiscordSettings {
  readonly allowPrivateAddresses: boolean
}

const configSchema = {
  type: 'object',
  properties: {
    allowPrivateAddresses: ALLOW_PRIVATE_ADDRESSES,
  },
  additionalProperties: false,
} as const

/** The plugin module the loader imports: manifest plus factory. */
const plugin: PluginModule<'chat'> = {
  manifest: { name: 'chat-discord', kind: 'chat', version: '1.0.0', configSchema },
  create(settings, context): ChatPlugin {
    const { allowPrivateAddresses } = settings as unknown as DiscordSettings
    return webhookChat('chat-discord', context, allowPrivateAddresses, (fetch, url, text) => deliver(fetch, url, text, allowPrivateAddresses))
  },
}

export default plugin
