/**
 * chat-slack: posts messages to Slack incoming webhooks with the official @slack/webhook client.
 * Every request goes through the address guard (shared/net), so a pasted URL cannot reach a
 * private or local address unless allowPrivateAddresses is set for development.
 */
import { createGuardedFetch } from '../../shared/net/guarded-fetch.js'
import type { ChatPlugin, PluginModule } from '../../shared/plugins/types.js'
import { SECOND } from '../../shared/time.js'
import { deliver } from './deliver.js'

/** Settings after the loader applied the schema's defaults. */
interface SlackSettings {
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
  manifest: { name: 'chat-slack', kind: 'chat', version: '1.0.0', configSchema },
  create(settings, context): ChatPlugin {
    const { allowPrivateAddresses } = settings as unknown as SlackSettings
    const fetch = createGuardedFetch({
      allowPrivate: allowPrivateAddresses,
      // Plain http only where private addresses are allowed: a public webhook in clear text
      // would hand its secret path to every hop.
      requireHttps: !allowPrivateAddresses,
      // Slack answers within a second or two; a setup step should not hang on a dead host.
      timeoutMs: 10 * SECOND,
      // Slack answers "ok" or an error code.
      maxResponseBytes: 64 * 1024,
    })
    if (allowPrivateAddresses) context.log.warn('chat-slack: private webhook addresses are allowed (development setting)')
    return {
      async send(webhookUrl, message) {
        const result = await deliver(fetch, webhookUrl, message.text, allowPrivateAddresses)
        // Never the URL: only whether it worked and the already-redacted reason.
        if (result.ok) context.log.debug('chat-slack: message delivered')
        else context.log.warn('chat-slack: delivery failed', { error: result.error })
        return result
      },
    }
  },
}

export default plugin
