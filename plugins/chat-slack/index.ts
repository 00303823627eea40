/**
 * chat-slack: posts messages to Slack incoming webhooks with the official @slack/webhook client.
 * Every request goes through the address guard (shared/net), so a pasted URL cannot reach a
 * private or local address unless allowPrivateAddresses is set for development.
 */
import { ALLOW_PRIVATE_ADDRESSES, webhookChat } from '../../shared/plugins/chat-webhook-kit.js'
import type { ChatPlugin, PluginModule } from '../../shared/plugins/types.js'
import { deliver } from './deliver.js'

/** Settings after the loader applied the schema's defaults. */
interface SlackSettings {
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
  manifest: { name: 'chat-slack', kind: 'chat', version: '1.0.0', configSchema },
  create(settings, context): ChatPlugin {
    const { allowPrivateAddresses } = settings as unknown as SlackSettings
    return webhookChat('chat-slack', context, allowPrivateAddresses, (fetch, url, text) => deliver(fetch, url, text, allowPrivateAddresses))
  },
}

export default plugin
